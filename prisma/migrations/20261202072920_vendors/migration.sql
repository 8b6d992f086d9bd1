-- AlterTable
ALTER TABLE "items" ADD COLUMN     "preferred_vendor_id" UUID;

-- CreateTable
CREATE TABLE "vendors" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "email" TEXT,
    "phone" TEXT,
    "website" TEXT,
    "reference" TEXT,
    "tax_id" TEXT,
    "payment_terms_days" INTEGER,
    "street" TEXT,
    "street2" TEXT,
    "city" TEXT,
    "state" TEXT,
    "zip_code" TEXT,
    "country" TEXT,
    "vendor_notes" TEXT,
    "status" TEXT NOT NULL,
    "labels" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "custom_fields" JSONB NOT NULL DEFAULT '{}',
    "lock_version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "vendors_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "vendors_account_id_created_at_id_idx" ON "vendors"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "vendors_account_id_updated_at_id_idx" ON "vendors"("account_id", "updated_at", "id");

-- CreateIndex
CREATE INDEX "vendors_account_id_name_id_idx" ON "vendors"("account_id", "name", "id");

-- CreateIndex
CREATE INDEX "vendors_account_id_status_id_idx" ON "vendors"("account_id", "status", "id");

-- CreateIndex
CREATE INDEX "items_account_id_preferred_vendor_id_idx" ON "items"("account_id", "preferred_vendor_id");

-- Hand-written: the text q searches (vendor: list.search), with its trigram index led by account_id.
ALTER TABLE "vendors" ADD COLUMN "search_text" TEXT GENERATED ALWAYS AS (lower(coalesce("name", '') || ' ' || coalesce("status", '') || ' ' || coalesce("email", '') || ' ' || coalesce("phone", '') || ' ' || coalesce("reference", '') || ' ' || coalesce("city", ''))) STORED;
CREATE INDEX "vendors_search_text_trgm" ON "vendors" USING GIN ("account_id", "search_text" gin_trgm_ops);
-- Hand-written: name is unique per account, case-insensitively (vendor: unique).
CREATE UNIQUE INDEX "vendors_account_name_ci_live" ON "vendors" ("account_id", lower("name")) WHERE "deleted_at" IS NULL;
