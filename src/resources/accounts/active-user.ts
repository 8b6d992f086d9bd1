import { addError } from '../../kernel/body.ts';
import type { FieldErrors } from '../../kernel/errors.ts';
import type { TenantTx } from '../../kernel/tenancy.ts';

/**
 * A user field (a deal's owner, a task's assignee) names an active user when it is set or changed: the kernel has
 * checked that the id is a user of the account (references); a deactivated user keeps the records already theirs
 * but takes no new ones. One statement, only when the field is written with a new value.
 */
export async function checkActiveUser(tx: TenantTx, field: string, value: bigint | number | null | undefined, current: bigint | number | null | undefined, errors: FieldErrors): Promise<void> {
  if (value === undefined || value === null || errors[field]) return;
  if (current !== undefined && current !== null && BigInt(current) === BigInt(value)) return;
  const user = await tx.user.findFirst({ where: { id: BigInt(value) }, select: { active: true } });
  if (user && !user.active) addError(errors, field, 'is an inactive user');
}
