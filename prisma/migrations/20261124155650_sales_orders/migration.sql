-- AlterTable
ALTER TABLE "invoices" ADD COLUMN     "sales_order_id" UUID;

-- AlterTable
ALTER TABLE "lineitems" ADD COLUMN     "sales_order_id" UUID;

-- CreateTable
CREATE TABLE "sales_orders" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "number" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "labels" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "custom_fields" JSONB NOT NULL DEFAULT '{}',
    "customer_id" UUID NOT NULL,
    "site_id" UUID,
    "contact_id" UUID,
    "tax_rate_id" UUID,
    "order_date" DATE NOT NULL,
    "reference" TEXT,
    "customer_notes" TEXT,
    "amount" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "search_text" TEXT NOT NULL DEFAULT '',
    "lock_version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "sales_orders_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "sales_orders_account_id_created_at_id_idx" ON "sales_orders"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "sales_orders_account_id_updated_at_id_idx" ON "sales_orders"("account_id", "updated_at", "id");

-- CreateIndex
CREATE INDEX "sales_orders_account_id_status_id_idx" ON "sales_orders"("account_id", "status", "id");

-- CreateIndex
CREATE INDEX "sales_orders_account_id_order_date_id_idx" ON "sales_orders"("account_id", "order_date", "id");

-- CreateIndex
CREATE INDEX "sales_orders_account_id_customer_id_created_at_id_idx" ON "sales_orders"("account_id", "customer_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "sales_orders_account_id_number_key" ON "sales_orders"("account_id", "number");

-- CreateIndex
CREATE INDEX "lineitems_account_id_sales_order_id_idx" ON "lineitems"("account_id", "sales_order_id");


-- Hand-written: what schema.prisma cannot express (see docs/migrations.md).

-- A line has exactly one parent, now also a sales order.
ALTER TABLE "lineitems" DROP CONSTRAINT "lineitems_one_parent";
ALTER TABLE "lineitems" ADD CONSTRAINT "lineitems_one_parent" CHECK (num_nonnulls("job_id", "estimate_id", "invoice_id", "sales_order_id") = 1);

-- A sales order is billed by at most one live invoice (POST /sales_orders/{id}/invoice answers 409
-- sales_order.already_invoiced first); the index also serves SalesOrder.invoices.
CREATE UNIQUE INDEX "invoices_sales_order_live_key" ON "invoices"("account_id", "sales_order_id") WHERE "sales_order_id" IS NOT NULL AND "deleted_at" IS NULL;

-- A sales order's q text: number, reference, amount (as 125.50), status and the customer's organization.
CREATE FUNCTION fl_sales_order_search_text(o "sales_orders") RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  RETURN lower(concat_ws(' ', o."number", o."reference", o."status", o."amount"::numeric(14,2)::text,
    (SELECT "organization" FROM "customers" WHERE "id" = o."customer_id" AND "account_id" = o."account_id")));
END $$;
CREATE INDEX "sales_orders_search_text_trgm" ON "sales_orders" USING GIN ("account_id", "search_text" gin_trgm_ops);

-- customers.organization: jobs, estimates, invoices, payments and now sales orders of the customer.
CREATE OR REPLACE FUNCTION fl_customer_renamed_work() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "jobs" j SET "search_text" = fl_job_search_text(j) WHERE j."account_id" = NEW."account_id" AND j."deleted_at" IS NULL AND j."customer_id" = NEW."id";
  UPDATE "estimates" e SET "search_text" = fl_estimate_search_text(e) WHERE e."account_id" = NEW."account_id" AND e."deleted_at" IS NULL AND e."customer_id" = NEW."id";
  UPDATE "invoices" i SET "search_text" = fl_invoice_search_text(i) WHERE i."account_id" = NEW."account_id" AND i."deleted_at" IS NULL AND i."customer_id" = NEW."id";
  UPDATE "payments" p SET "search_text" = fl_payment_search_text(p) WHERE p."account_id" = NEW."account_id" AND p."deleted_at" IS NULL AND p."customer_id" = NEW."id";
  UPDATE "sales_orders" o SET "search_text" = fl_sales_order_search_text(o) WHERE o."account_id" = NEW."account_id" AND o."deleted_at" IS NULL AND o."customer_id" = NEW."id";
  RETURN NULL;
END $$;
