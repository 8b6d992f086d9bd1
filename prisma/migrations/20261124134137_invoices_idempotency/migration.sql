-- AlterTable
ALTER TABLE "accounts" ADD COLUMN     "currency" TEXT NOT NULL DEFAULT 'USD',
ADD COLUMN     "payment_terms_days" INTEGER NOT NULL DEFAULT 30,
ADD COLUMN     "time_zone" TEXT NOT NULL DEFAULT 'UTC';

-- AlterTable
ALTER TABLE "lineitems" ADD COLUMN     "invoice_id" UUID;

-- CreateTable
CREATE TABLE "invoices" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "number" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "labels" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "custom_fields" JSONB NOT NULL DEFAULT '{}',
    "customer_id" UUID NOT NULL,
    "site_id" UUID,
    "contact_id" UUID,
    "job_id" UUID,
    "estimate_id" UUID,
    "tax_rate_id" UUID,
    "invoice_date" DATE NOT NULL,
    "due_date" DATE NOT NULL,
    "reference" TEXT,
    "customer_notes" TEXT,
    "amount" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "balance" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "search_text" TEXT NOT NULL DEFAULT '',
    "lock_version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "invoices_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "idempotency_keys" (
    "account_id" UUID NOT NULL,
    "api_key_id" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "claim_token" UUID NOT NULL,
    "locked_until" TIMESTAMPTZ(3) NOT NULL,
    "response" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("account_id","api_key_id","key")
);

-- CreateIndex
CREATE INDEX "invoices_account_id_created_at_id_idx" ON "invoices"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "invoices_account_id_updated_at_id_idx" ON "invoices"("account_id", "updated_at", "id");

-- CreateIndex
CREATE INDEX "invoices_account_id_status_id_idx" ON "invoices"("account_id", "status", "id");

-- CreateIndex
CREATE INDEX "invoices_account_id_invoice_date_id_idx" ON "invoices"("account_id", "invoice_date", "id");

-- CreateIndex
CREATE INDEX "invoices_account_id_due_date_id_idx" ON "invoices"("account_id", "due_date", "id");

-- CreateIndex
CREATE INDEX "invoices_account_id_customer_id_created_at_id_idx" ON "invoices"("account_id", "customer_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "invoices_account_id_number_key" ON "invoices"("account_id", "number");

-- CreateIndex
CREATE INDEX "idempotency_keys_expires_at_idx" ON "idempotency_keys"("expires_at");

-- CreateIndex
CREATE INDEX "lineitems_account_id_invoice_id_idx" ON "lineitems"("account_id", "invoice_id");

-- Hand-written: what schema.prisma cannot express (see docs/migrations.md).

-- A line has exactly one parent, now also an invoice.
ALTER TABLE "lineitems" DROP CONSTRAINT "lineitems_one_parent";
ALTER TABLE "lineitems" ADD CONSTRAINT "lineitems_one_parent" CHECK (num_nonnulls("job_id", "estimate_id", "invoice_id") = 1);

-- What is owed is never negative, and never more than the invoice: payments apply at most the balance.
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_balance_range" CHECK ("balance" >= 0 AND "balance" <= "amount");
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_payment_terms_days" CHECK ("payment_terms_days" BETWEEN 0 AND 3650);
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_state" CHECK ("state" IN ('running', 'done'));

-- An invoice's q text: number, reference, amount, balance, status and the customer's organization (the spec's list).
-- Amount and balance are written as 125.50, so searching 125.50 finds an invoice whose amount or balance it is.
CREATE FUNCTION fl_invoice_search_text(i "invoices") RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  RETURN lower(concat_ws(' ', i."number", i."reference", i."status", i."amount"::numeric(14,2)::text, i."balance"::numeric(14,2)::text,
    (SELECT "organization" FROM "customers" WHERE "id" = i."customer_id" AND "account_id" = i."account_id")));
END $$;

-- customers.organization: jobs, estimates and now invoices of the customer.
CREATE OR REPLACE FUNCTION fl_customer_renamed_work() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "jobs" j SET "search_text" = fl_job_search_text(j) WHERE j."account_id" = NEW."account_id" AND j."deleted_at" IS NULL AND j."customer_id" = NEW."id";
  UPDATE "estimates" e SET "search_text" = fl_estimate_search_text(e) WHERE e."account_id" = NEW."account_id" AND e."deleted_at" IS NULL AND e."customer_id" = NEW."id";
  UPDATE "invoices" i SET "search_text" = fl_invoice_search_text(i) WHERE i."account_id" = NEW."account_id" AND i."deleted_at" IS NULL AND i."customer_id" = NEW."id";
  RETURN NULL;
END $$;
