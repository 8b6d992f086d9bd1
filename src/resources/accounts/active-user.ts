import { addError } from '../../kernel/body.ts';
import type { FieldErrors } from '../../kernel/errors.ts';
import type { ChildComputeArgs } from '../../kernel/resource.ts';
import { readShared, type TenantTx } from '../../kernel/tenancy.ts';

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

/**
 * The users of a child collection of user ids (a job's assignments, a project's team): one lookup for every user of
 * the write, share-locked (an assignee's name goes into the job's search text). Each must be a user of the account,
 * given once, and active unless the collection already holds them (a user deactivated since stays until removed).
 * Errors go under `fieldAt(at)`: the entry's user_id field, or the entry itself for a list of ids.
 */
export async function checkUserEntries({ tx, entries, existing, errors }: ChildComputeArgs, fieldAt: (at: string) => string): Promise<void> {
  const held = new Set(existing.map((child) => String(child.user_id)));
  const ids = [...new Set(entries.filter((e) => e.entry.user_id !== undefined).map((e) => String(e.entry.user_id)))];
  const users = new Map((await readShared<{ id: bigint | string; active: boolean }>(tx, 'users', 'id, active', ids, 'bigint')).map((u) => [String(u.id), u]));
  const seen = new Set<string>();
  for (const { entry, at } of entries) {
    const field = fieldAt(at);
    if (entry.user_id === undefined) {
      addError(errors, field, 'is missing');
      continue;
    }
    const id = String(entry.user_id);
    const user = users.get(id);
    if (!user) addError(errors, field, 'does not match any user of this account');
    else if (seen.has(id)) addError(errors, field, 'is given more than once');
    else if (!user.active && !held.has(id)) addError(errors, field, 'is an inactive user');
    seen.add(id);
  }
}
