-- DropIndex
DROP INDEX "job_assignments_account_id_job_id_idx";

-- AlterTable
ALTER TABLE "lineitems" ADD COLUMN     "applied_tax_rate" DECIMAL(7,4);

-- CreateIndex
CREATE INDEX "estimates_account_id_status_id_idx" ON "estimates"("account_id", "status", "id");

-- CreateIndex
CREATE INDEX "estimates_account_id_customer_id_created_at_id_idx" ON "estimates"("account_id", "customer_id", "created_at", "id");

-- Written by hand, before the unique index: keep the first of duplicate assignments of a user to a job.
DELETE FROM "job_assignments" a USING "job_assignments" b
 WHERE a."job_id" = b."job_id" AND a."user_id" = b."user_id" AND (a."position", a."id") > (b."position", b."id");

-- CreateIndex
CREATE UNIQUE INDEX "job_assignments_account_id_job_id_user_id_key" ON "job_assignments"("account_id", "job_id", "user_id");

-- CreateIndex
CREATE INDEX "jobs_account_id_status_id_idx" ON "jobs"("account_id", "status", "id");

-- CreateIndex
CREATE INDEX "jobs_account_id_customer_id_created_at_id_idx" ON "jobs"("account_id", "customer_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "jobs_account_id_site_id_created_at_id_idx" ON "jobs"("account_id", "site_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "systems_account_id_name_id_idx" ON "systems"("account_id", "name", "id");

-- CreateIndex
CREATE INDEX "systems_account_id_system_type_id_idx" ON "systems"("account_id", "system_type", "id");


-- Hand-written: what schema.prisma cannot express (see docs/migrations.md).
-- Existing lines: record their tax rate's percent of today as the applied percent (the best available; the
-- percent a line was computed with was not stored before). Their stored amounts are kept as they are; an edit
-- of such a line recomputes it with this percent.
UPDATE "lineitems" l SET "applied_tax_rate" = t."rate" FROM "tax_rates" t WHERE t."id" = l."tax_rate_id";
