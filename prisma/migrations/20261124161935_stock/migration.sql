-- CreateTable
CREATE TABLE "stock_locations" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "technician_id" BIGINT,
    "description" TEXT,
    "lock_version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "stock_locations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "stock_levels" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "item_id" UUID NOT NULL,
    "location_id" UUID NOT NULL,
    "quantity" DECIMAL(14,4) NOT NULL DEFAULT 0,
    "lock_version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "stock_levels_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "stock_adjustments" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "location_id" UUID NOT NULL,
    "item_id" UUID NOT NULL,
    "quantity" DECIMAL(14,4) NOT NULL,
    "reason" TEXT NOT NULL,
    "note" TEXT,
    "on_hand" DECIMAL(14,4) NOT NULL DEFAULT 0,
    "lock_version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "stock_adjustments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "inventory_transfers" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "number" TEXT NOT NULL,
    "from_location_id" UUID NOT NULL,
    "to_location_id" UUID NOT NULL,
    "transfer_date" DATE NOT NULL,
    "note" TEXT,
    "lock_version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "inventory_transfers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "inventory_transfer_lines" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "transfer_id" UUID NOT NULL,
    "item_id" UUID NOT NULL,
    "quantity" DECIMAL(14,4) NOT NULL,
    "position" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "inventory_transfer_lines_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "stock_locations_account_id_name_id_idx" ON "stock_locations"("account_id", "name", "id");

-- CreateIndex
CREATE INDEX "stock_locations_account_id_created_at_id_idx" ON "stock_locations"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "stock_levels_account_id_location_id_idx" ON "stock_levels"("account_id", "location_id");

-- CreateIndex
CREATE INDEX "stock_levels_account_id_created_at_id_idx" ON "stock_levels"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "stock_levels_account_id_updated_at_id_idx" ON "stock_levels"("account_id", "updated_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "stock_levels_account_id_item_id_location_id_key" ON "stock_levels"("account_id", "item_id", "location_id");

-- CreateIndex
CREATE INDEX "stock_adjustments_account_id_created_at_id_idx" ON "stock_adjustments"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "stock_adjustments_account_id_item_id_idx" ON "stock_adjustments"("account_id", "item_id");

-- CreateIndex
CREATE INDEX "stock_adjustments_account_id_location_id_idx" ON "stock_adjustments"("account_id", "location_id");

-- CreateIndex
CREATE INDEX "inventory_transfers_account_id_created_at_id_idx" ON "inventory_transfers"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "inventory_transfers_account_id_transfer_date_id_idx" ON "inventory_transfers"("account_id", "transfer_date", "id");

-- CreateIndex
CREATE INDEX "inventory_transfers_account_id_number_id_idx" ON "inventory_transfers"("account_id", "number", "id");

-- CreateIndex
CREATE UNIQUE INDEX "inventory_transfers_account_id_number_key" ON "inventory_transfers"("account_id", "number");

-- CreateIndex
CREATE INDEX "inventory_transfer_lines_account_id_transfer_id_idx" ON "inventory_transfer_lines"("account_id", "transfer_id");


-- Hand-written: what schema.prisma cannot express (see docs/migrations.md).

-- Stock is never negative; an adjustment changes something; a transfer moves a positive quantity between two places.
ALTER TABLE "stock_levels" ADD CONSTRAINT "stock_levels_quantity_not_negative" CHECK ("quantity" >= 0);
ALTER TABLE "stock_adjustments" ADD CONSTRAINT "stock_adjustments_quantity_not_zero" CHECK ("quantity" <> 0);
ALTER TABLE "inventory_transfer_lines" ADD CONSTRAINT "inventory_transfer_lines_quantity_positive" CHECK ("quantity" > 0);
ALTER TABLE "inventory_transfers" ADD CONSTRAINT "inventory_transfers_two_places" CHECK ("from_location_id" <> "to_location_id");
ALTER TABLE "stock_locations" ADD CONSTRAINT "stock_locations_kind" CHECK ("kind" IN ('warehouse', 'vehicle'));

-- A location's name is unique among the account's live locations, whatever its case.
CREATE UNIQUE INDEX "stock_locations_account_id_name_live_key" ON "stock_locations"("account_id", lower("name")) WHERE "deleted_at" IS NULL;

ALTER TABLE "stock_locations" ADD COLUMN "search_text" TEXT GENERATED ALWAYS AS (lower("name" || ' ' || coalesce("description", ''))) STORED;
CREATE INDEX "stock_locations_search_text_trgm" ON "stock_locations" USING GIN ("account_id", "search_text" gin_trgm_ops);
