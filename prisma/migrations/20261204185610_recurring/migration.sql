-- AlterTable
ALTER TABLE "invoices" ADD COLUMN     "occurrence_date" DATE,
ADD COLUMN     "recurring_invoice_id" UUID;

-- AlterTable
ALTER TABLE "jobs" ADD COLUMN     "occurrence_date" DATE,
ADD COLUMN     "recurring_job_id" UUID;

-- AlterTable
ALTER TABLE "lineitems" ADD COLUMN     "recurring_invoice_id" UUID,
ADD COLUMN     "recurring_job_id" UUID;

-- CreateTable
CREATE TABLE "recurring_jobs" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "number" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "labels" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "custom_fields" JSONB NOT NULL DEFAULT '{}',
    "customer_id" UUID,
    "site_id" UUID,
    "contact_id" UUID,
    "system_id" UUID,
    "project_id" UUID,
    "title" TEXT,
    "scope_of_work" TEXT,
    "work_description" TEXT,
    "customer_notes" TEXT,
    "reference" TEXT,
    "job_type" TEXT,
    "priority" TEXT,
    "rule" TEXT NOT NULL,
    "start_date" DATE NOT NULL,
    "start_time" TEXT,
    "duration_minutes" INTEGER,
    "end_date" DATE,
    "count" INTEGER,
    "horizon_days" INTEGER NOT NULL DEFAULT 30,
    "generated_through" DATE,
    "amount" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "lock_version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "recurring_jobs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "recurring_job_assignments" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "recurring_job_id" UUID NOT NULL,
    "user_id" BIGINT NOT NULL,
    "position" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "recurring_job_assignments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "recurring_invoices" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "number" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "labels" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "custom_fields" JSONB NOT NULL DEFAULT '{}',
    "customer_id" UUID NOT NULL,
    "site_id" UUID,
    "contact_id" UUID,
    "reference" TEXT,
    "customer_notes" TEXT,
    "tax_rate_id" UUID,
    "payment_terms_days" INTEGER,
    "rule" TEXT NOT NULL,
    "start_date" DATE NOT NULL,
    "end_date" DATE,
    "count" INTEGER,
    "horizon_days" INTEGER NOT NULL DEFAULT 0,
    "generated_through" DATE,
    "amount" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "lock_version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "recurring_invoices_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "recurring_occurrences" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "template_id" UUID NOT NULL,
    "occurrence_date" DATE NOT NULL,
    "state" TEXT NOT NULL,
    "record_id" UUID,
    "reason" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "recurring_occurrences_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "recurring_jobs_account_id_created_at_id_idx" ON "recurring_jobs"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "recurring_jobs_account_id_updated_at_id_idx" ON "recurring_jobs"("account_id", "updated_at", "id");

-- CreateIndex
CREATE INDEX "recurring_jobs_account_id_number_id_idx" ON "recurring_jobs"("account_id", "number", "id");

-- CreateIndex
CREATE INDEX "recurring_jobs_account_id_status_id_idx" ON "recurring_jobs"("account_id", "status", "id");

-- CreateIndex
CREATE INDEX "recurring_jobs_account_id_customer_id_created_at_id_idx" ON "recurring_jobs"("account_id", "customer_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "recurring_jobs_account_id_number_key" ON "recurring_jobs"("account_id", "number");

-- CreateIndex
CREATE UNIQUE INDEX "recurring_job_assignments_account_id_recurring_job_id_user__key" ON "recurring_job_assignments"("account_id", "recurring_job_id", "user_id");

-- CreateIndex
CREATE INDEX "recurring_invoices_account_id_created_at_id_idx" ON "recurring_invoices"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "recurring_invoices_account_id_updated_at_id_idx" ON "recurring_invoices"("account_id", "updated_at", "id");

-- CreateIndex
CREATE INDEX "recurring_invoices_account_id_number_id_idx" ON "recurring_invoices"("account_id", "number", "id");

-- CreateIndex
CREATE INDEX "recurring_invoices_account_id_status_id_idx" ON "recurring_invoices"("account_id", "status", "id");

-- CreateIndex
CREATE INDEX "recurring_invoices_account_id_customer_id_created_at_id_idx" ON "recurring_invoices"("account_id", "customer_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "recurring_invoices_account_id_number_key" ON "recurring_invoices"("account_id", "number");

-- CreateIndex
CREATE UNIQUE INDEX "recurring_occurrences_account_id_template_id_occurrence_dat_key" ON "recurring_occurrences"("account_id", "template_id", "occurrence_date");

-- CreateIndex
CREATE UNIQUE INDEX "invoices_account_id_recurring_invoice_id_occurrence_date_key" ON "invoices"("account_id", "recurring_invoice_id", "occurrence_date");

-- CreateIndex
CREATE UNIQUE INDEX "jobs_account_id_recurring_job_id_occurrence_date_key" ON "jobs"("account_id", "recurring_job_id", "occurrence_date");

-- CreateIndex
CREATE INDEX "lineitems_account_id_recurring_job_id_idx" ON "lineitems"("account_id", "recurring_job_id");

-- CreateIndex
CREATE INDEX "lineitems_account_id_recurring_invoice_id_idx" ON "lineitems"("account_id", "recurring_invoice_id");

-- Hand-written: the text q searches (recurring_job: list.search), with its trigram index led by account_id.
ALTER TABLE "recurring_jobs" ADD COLUMN "search_text" TEXT GENERATED ALWAYS AS (lower(coalesce("number", '') || ' ' || coalesce("title", '') || ' ' || coalesce("job_type", '') || ' ' || coalesce("reference", '') || ' ' || coalesce("rule", ''))) STORED;
CREATE INDEX "recurring_jobs_search_text_trgm" ON "recurring_jobs" USING GIN ("account_id", "search_text" gin_trgm_ops);

-- Hand-written: the text q searches (recurring_invoice: list.search), with its trigram index led by account_id.
ALTER TABLE "recurring_invoices" ADD COLUMN "search_text" TEXT GENERATED ALWAYS AS (lower(coalesce("number", '') || ' ' || coalesce("reference", '') || ' ' || coalesce("rule", ''))) STORED;
CREATE INDEX "recurring_invoices_search_text_trgm" ON "recurring_invoices" USING GIN ("account_id", "search_text" gin_trgm_ops);

-- Hand-written: a line belongs to exactly one parent, recurring templates included.
ALTER TABLE "lineitems" DROP CONSTRAINT "lineitems_one_parent";
ALTER TABLE "lineitems" ADD CONSTRAINT "lineitems_one_parent" CHECK (num_nonnulls("job_id", "estimate_id", "invoice_id", "sales_order_id", "recurring_job_id", "recurring_invoice_id") = 1);
