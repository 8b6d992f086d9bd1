import type { TenantTx } from './tenancy.ts';

// The rows of stored_files a record's write changes in its own transaction (src/kernel/attachments.ts has the
// rest of the flow): released files are removed later by the files-purge job, never before this commits.

/** Marks every attached file of the record released (the record is deleted), in the delete's transaction. */
export async function releaseRecordFiles(tx: TenantTx, recordClass: string, recordId: string, now: Date): Promise<void> {
  await tx.storedFile.updateMany({ where: { record_class: recordClass, record_id: recordId, state: 'attached' }, data: { state: 'released', released_at: now } });
}
