import type { TenantTx } from './tenancy.ts';
import { tenantQuery } from './tenant-sql.ts';

/**
 * The next sequential number of a resource in the current tenant. The counter row is incremented inside the
 * caller's transaction, so concurrent creators queue on its row lock and a rolled-back create gives its
 * value back: no gaps, no duplicates. Values already taken by client-supplied numbers are skipped.
 */
export async function nextNumber(tx: TenantTx, resource: string, isTaken: (candidate: string) => Promise<boolean>): Promise<string> {
  for (;;) {
    const rows = await tenantQuery<{ last_value: bigint }>(
      tx,
      `INSERT INTO number_sequences (account_id, resource, last_value) VALUES ($1::uuid, $2, 1)
       ON CONFLICT (account_id, resource) DO UPDATE SET last_value = number_sequences.last_value + 1
       RETURNING last_value`,
      resource,
    );
    const candidate = String(rows[0].last_value);
    if (!(await isTaken(candidate))) return candidate;
  }
}

/**
 * Takes the row lock of the resource's number counter without moving it. A create with a client-supplied
 * number holds it while checking and inserting its value, so it queues with automatic numbering: each side
 * then sees the other's committed number instead of both taking the same one.
 */
export async function lockNumberSequence(tx: TenantTx, resource: string): Promise<void> {
  await tenantQuery(
    tx,
    `INSERT INTO number_sequences (account_id, resource, last_value) VALUES ($1::uuid, $2, 0)
     ON CONFLICT (account_id, resource) DO UPDATE SET last_value = number_sequences.last_value
     RETURNING last_value`,
    resource,
  );
}
