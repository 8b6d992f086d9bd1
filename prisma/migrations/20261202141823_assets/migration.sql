-- CreateTable
CREATE TABLE "job_assets" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "job_id" UUID NOT NULL,
    "asset_id" UUID NOT NULL,
    "position" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "job_assets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "assets" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "site_id" UUID NOT NULL,
    "customer_id" UUID,
    "system_id" UUID,
    "name" TEXT NOT NULL,
    "make" TEXT,
    "model" TEXT,
    "serial_number" TEXT,
    "install_date" DATE,
    "warranty_expires_on" DATE,
    "location_note" TEXT,
    "status" TEXT NOT NULL,
    "labels" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "custom_fields" JSONB NOT NULL DEFAULT '{}',
    "lock_version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "assets_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "job_assets_account_id_asset_id_idx" ON "job_assets"("account_id", "asset_id");

-- CreateIndex
CREATE UNIQUE INDEX "job_assets_account_id_job_id_asset_id_key" ON "job_assets"("account_id", "job_id", "asset_id");

-- CreateIndex
CREATE INDEX "assets_account_id_created_at_id_idx" ON "assets"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "assets_account_id_updated_at_id_idx" ON "assets"("account_id", "updated_at", "id");

-- CreateIndex
CREATE INDEX "assets_account_id_name_id_idx" ON "assets"("account_id", "name", "id");

-- CreateIndex
CREATE INDEX "assets_account_id_status_id_idx" ON "assets"("account_id", "status", "id");

-- CreateIndex
CREATE INDEX "assets_account_id_install_date_id_idx" ON "assets"("account_id", "install_date", "id");

-- CreateIndex
CREATE INDEX "assets_account_id_warranty_expires_on_id_idx" ON "assets"("account_id", "warranty_expires_on", "id");

-- CreateIndex
CREATE INDEX "assets_account_id_site_id_idx" ON "assets"("account_id", "site_id");

-- CreateIndex
CREATE INDEX "assets_account_id_customer_id_idx" ON "assets"("account_id", "customer_id");

-- CreateIndex
CREATE INDEX "assets_account_id_system_id_idx" ON "assets"("account_id", "system_id");

-- Hand-written: the text q searches (asset: list.search), with its trigram index led by account_id.
ALTER TABLE "assets" ADD COLUMN "search_text" TEXT GENERATED ALWAYS AS (lower(coalesce("name", '') || ' ' || coalesce("make", '') || ' ' || coalesce("model", '') || ' ' || coalesce("serial_number", '') || ' ' || coalesce("status", '') || ' ' || coalesce("location_note", ''))) STORED;
CREATE INDEX "assets_search_text_trgm" ON "assets" USING GIN ("account_id", "search_text" gin_trgm_ops);
-- Hand-written: serial_number is unique per account, case-insensitively (asset: unique).
CREATE UNIQUE INDEX "assets_account_serial_number_ci_live" ON "assets" ("account_id", lower("serial_number")) WHERE "deleted_at" IS NULL;
