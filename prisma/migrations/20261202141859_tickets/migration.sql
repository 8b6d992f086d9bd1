-- AlterTable
ALTER TABLE "contacts" ADD COLUMN     "labels" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- AlterTable
ALTER TABLE "jobs" ADD COLUMN     "ticket_id" UUID;

-- AlterTable
ALTER TABLE "sites" ADD COLUMN     "labels" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- AlterTable
ALTER TABLE "systems" ADD COLUMN     "labels" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateTable
CREATE TABLE "tickets" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "number" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "description" TEXT,
    "customer_id" UUID NOT NULL,
    "site_id" UUID,
    "contact_id" UUID,
    "priority" TEXT NOT NULL DEFAULT 'normal',
    "channel" TEXT,
    "assignee_id" BIGINT,
    "status" TEXT NOT NULL,
    "labels" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "custom_fields" JSONB NOT NULL DEFAULT '{}',
    "converted_job_id" UUID,
    "converted_at" TIMESTAMPTZ(3),
    "lock_version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "tickets_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "tickets_account_id_created_at_id_idx" ON "tickets"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "tickets_account_id_updated_at_id_idx" ON "tickets"("account_id", "updated_at", "id");

-- CreateIndex
CREATE INDEX "tickets_account_id_number_id_idx" ON "tickets"("account_id", "number", "id");

-- CreateIndex
CREATE INDEX "tickets_account_id_status_id_idx" ON "tickets"("account_id", "status", "id");

-- CreateIndex
CREATE INDEX "tickets_account_id_customer_id_created_at_id_idx" ON "tickets"("account_id", "customer_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "tickets_account_id_site_id_created_at_id_idx" ON "tickets"("account_id", "site_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "tickets_account_id_assignee_id_created_at_id_idx" ON "tickets"("account_id", "assignee_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "tickets_account_id_number_key" ON "tickets"("account_id", "number");

-- Hand-written: the text q searches (ticket: list.search), with its trigram index led by account_id.
ALTER TABLE "tickets" ADD COLUMN "search_text" TEXT GENERATED ALWAYS AS (lower(coalesce("number", '') || ' ' || coalesce("subject", '') || ' ' || coalesce("description", '') || ' ' || coalesce("status", ''))) STORED;
CREATE INDEX "tickets_search_text_trgm" ON "tickets" USING GIN ("account_id", "search_text" gin_trgm_ops);

-- Hand-written: a ticket converts into one job (POST /tickets/{id}/convert answers 409 ticket.already_converted
-- first, under the ticket's row lock); this index holds the rule even if code were wrong.
CREATE UNIQUE INDEX "jobs_ticket_live_key" ON "jobs"("account_id", "ticket_id") WHERE "ticket_id" IS NOT NULL AND "deleted_at" IS NULL;

-- Hand-written: a purchase order's q text now also holds its vendor's name. search_text stops being a generated
-- column (which can read only its own row) and is written by a trigger from fl_purchase_order_search_text, on
-- every write of the order and when its vendor is renamed. The order's write share-locks the vendor row
-- (readShared), so a concurrent rename either commits first (the order copies the new name) or waits for the
-- order (and its trigger then sees the written order). Like a job's, the text serves q only: a rename does not
-- touch the orders' updated_at or lock_version.
ALTER TABLE "purchase_orders" ALTER COLUMN "search_text" DROP EXPRESSION;
CREATE FUNCTION fl_purchase_order_search_text(o "purchase_orders") RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  RETURN lower(concat_ws(' ', o."number", o."reference", o."status", o."memo",
    (SELECT "name" FROM "vendors" WHERE "id" = o."vendor_id" AND "account_id" = o."account_id")));
END $$;
CREATE FUNCTION fl_purchase_order_written() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW."search_text" := fl_purchase_order_search_text(NEW);
  RETURN NEW;
END $$;
CREATE TRIGGER "purchase_orders_search_text" BEFORE INSERT OR UPDATE ON "purchase_orders"
  FOR EACH ROW EXECUTE FUNCTION fl_purchase_order_written();
UPDATE "purchase_orders" p SET "search_text" = fl_purchase_order_search_text(p);

-- vendors.name: the purchase orders placed with the vendor.
CREATE FUNCTION fl_vendor_renamed_orders() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "purchase_orders" p SET "search_text" = fl_purchase_order_search_text(p) WHERE p."account_id" = NEW."account_id" AND p."deleted_at" IS NULL AND p."vendor_id" = NEW."id";
  RETURN NULL;
END $$;
CREATE TRIGGER "vendors_renamed_orders" AFTER UPDATE OF "name" ON "vendors"
  FOR EACH ROW WHEN (OLD."name" IS DISTINCT FROM NEW."name") EXECUTE FUNCTION fl_vendor_renamed_orders();
