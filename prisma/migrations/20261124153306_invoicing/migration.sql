-- AlterTable
ALTER TABLE "estimates" ADD COLUMN     "converted_invoice_id" UUID;

-- Hand-written: what schema.prisma cannot express (see docs/migrations.md).

-- A job is billed by at most one live invoice (POST /jobs/{id}/invoice answers 409 job.already_invoiced first).
CREATE UNIQUE INDEX "invoices_job_live_key" ON "invoices"("account_id", "job_id") WHERE "job_id" IS NOT NULL AND "deleted_at" IS NULL;
