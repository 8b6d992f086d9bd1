-- CreateTable
CREATE TABLE "payments" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "labels" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "custom_fields" JSONB NOT NULL DEFAULT '{}',
    "customer_id" UUID NOT NULL,
    "amount" DECIMAL(14,2) NOT NULL,
    "payment_date" DATE NOT NULL,
    "method" TEXT NOT NULL,
    "reference" TEXT,
    "memo" TEXT,
    "unapplied_amount" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "search_text" TEXT NOT NULL DEFAULT '',
    "lock_version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "payments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "payment_applications" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "payment_id" UUID NOT NULL,
    "invoice_id" UUID NOT NULL,
    "position" INTEGER NOT NULL DEFAULT 0,
    "amount" DECIMAL(14,2) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "payment_applications_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "payments_account_id_created_at_id_idx" ON "payments"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "payments_account_id_updated_at_id_idx" ON "payments"("account_id", "updated_at", "id");

-- CreateIndex
CREATE INDEX "payments_account_id_payment_date_id_idx" ON "payments"("account_id", "payment_date", "id");

-- CreateIndex
CREATE INDEX "payments_account_id_customer_id_created_at_id_idx" ON "payments"("account_id", "customer_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "payment_applications_account_id_payment_id_idx" ON "payment_applications"("account_id", "payment_id");

-- CreateIndex
CREATE INDEX "payment_applications_account_id_invoice_id_idx" ON "payment_applications"("account_id", "invoice_id");

-- Hand-written: what schema.prisma cannot express (see docs/migrations.md).

-- A payment is positive and never applies more than it is; an application is positive.
ALTER TABLE "payments" ADD CONSTRAINT "payments_amount_positive" CHECK ("amount" > 0);
ALTER TABLE "payments" ADD CONSTRAINT "payments_unapplied_range" CHECK ("unapplied_amount" >= 0 AND "unapplied_amount" <= "amount");
ALTER TABLE "payments" ADD CONSTRAINT "payments_method" CHECK ("method" IN ('cash', 'check', 'card', 'bank_transfer', 'other'));
ALTER TABLE "payment_applications" ADD CONSTRAINT "payment_applications_amount_positive" CHECK ("amount" > 0);

-- A payment's q text: reference, memo, method, amount (as 125.50) and the customer's organization.
CREATE FUNCTION fl_payment_search_text(p "payments") RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  RETURN lower(concat_ws(' ', p."reference", p."memo", p."method", p."amount"::numeric(14,2)::text,
    (SELECT "organization" FROM "customers" WHERE "id" = p."customer_id" AND "account_id" = p."account_id")));
END $$;

-- customers.organization: jobs, estimates, invoices and now payments of the customer.
CREATE OR REPLACE FUNCTION fl_customer_renamed_work() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "jobs" j SET "search_text" = fl_job_search_text(j) WHERE j."account_id" = NEW."account_id" AND j."deleted_at" IS NULL AND j."customer_id" = NEW."id";
  UPDATE "estimates" e SET "search_text" = fl_estimate_search_text(e) WHERE e."account_id" = NEW."account_id" AND e."deleted_at" IS NULL AND e."customer_id" = NEW."id";
  UPDATE "invoices" i SET "search_text" = fl_invoice_search_text(i) WHERE i."account_id" = NEW."account_id" AND i."deleted_at" IS NULL AND i."customer_id" = NEW."id";
  UPDATE "payments" p SET "search_text" = fl_payment_search_text(p) WHERE p."account_id" = NEW."account_id" AND p."deleted_at" IS NULL AND p."customer_id" = NEW."id";
  RETURN NULL;
END $$;
