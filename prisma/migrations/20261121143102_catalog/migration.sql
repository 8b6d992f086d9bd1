-- AlterTable
ALTER TABLE "customers" ADD COLUMN     "price_adjustment" DECIMAL(7,4);

-- CreateTable
CREATE TABLE "items" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "number" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "sku" TEXT,
    "description" TEXT,
    "item_type" TEXT NOT NULL,
    "unit_price" DECIMAL(14,4) NOT NULL,
    "cost" DECIMAL(14,4),
    "taxable" BOOLEAN NOT NULL DEFAULT true,
    "labels" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "custom_fields" JSONB NOT NULL DEFAULT '{}',
    "lock_version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "items_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "customer_item_prices" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "customer_id" UUID NOT NULL,
    "item_id" UUID NOT NULL,
    "unit_price" DECIMAL(14,4) NOT NULL,
    "lock_version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "customer_item_prices_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tax_rates" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "rate" DECIMAL(7,4) NOT NULL,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "lock_version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "tax_rates_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "systems" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "site_id" UUID NOT NULL,
    "system_type" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "manufacturer" TEXT,
    "model" TEXT,
    "serial_number" TEXT,
    "install_date" DATE,
    "system_option_id" UUID,
    "custom_fields" JSONB NOT NULL DEFAULT '{}',
    "lock_version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "systems_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "items_account_id_created_at_id_idx" ON "items"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "items_account_id_updated_at_id_idx" ON "items"("account_id", "updated_at", "id");

-- CreateIndex
CREATE INDEX "items_account_id_name_id_idx" ON "items"("account_id", "name", "id");

-- CreateIndex
CREATE UNIQUE INDEX "items_account_id_number_key" ON "items"("account_id", "number");

-- CreateIndex
CREATE INDEX "customer_item_prices_account_id_created_at_id_idx" ON "customer_item_prices"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "customer_item_prices_account_id_updated_at_id_idx" ON "customer_item_prices"("account_id", "updated_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "customer_item_prices_account_id_customer_id_item_id_key" ON "customer_item_prices"("account_id", "customer_id", "item_id");

-- CreateIndex
CREATE INDEX "tax_rates_account_id_created_at_id_idx" ON "tax_rates"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "tax_rates_account_id_updated_at_id_idx" ON "tax_rates"("account_id", "updated_at", "id");

-- CreateIndex
CREATE INDEX "tax_rates_account_id_name_id_idx" ON "tax_rates"("account_id", "name", "id");

-- CreateIndex
CREATE INDEX "systems_account_id_created_at_id_idx" ON "systems"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "systems_account_id_updated_at_id_idx" ON "systems"("account_id", "updated_at", "id");

-- CreateIndex
CREATE INDEX "systems_account_id_site_id_idx" ON "systems"("account_id", "site_id");


-- Hand-written: what schema.prisma cannot express (see docs/migrations.md).
ALTER TABLE "customer_item_prices" ADD CONSTRAINT "customer_item_prices_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers"("id");
ALTER TABLE "customer_item_prices" ADD CONSTRAINT "customer_item_prices_item_id_fkey" FOREIGN KEY ("item_id") REFERENCES "items"("id");
ALTER TABLE "systems" ADD CONSTRAINT "systems_site_id_fkey" FOREIGN KEY ("site_id") REFERENCES "sites"("id");
ALTER TABLE "systems" ADD CONSTRAINT "systems_system_option_id_fkey" FOREIGN KEY ("system_option_id") REFERENCES "system_options"("id");
ALTER TABLE "items" ADD CONSTRAINT "items_item_type" CHECK ("item_type" IN ('material', 'labor', 'service'));
ALTER TABLE "items" ADD CONSTRAINT "items_money_not_negative" CHECK ("unit_price" >= 0 AND ("cost" IS NULL OR "cost" >= 0));
ALTER TABLE "tax_rates" ADD CONSTRAINT "tax_rates_rate_range" CHECK ("rate" >= 0 AND "rate" <= 100);

ALTER TABLE "items" ADD COLUMN "search_text" TEXT GENERATED ALWAYS AS (
  lower("name" || ' ' || "number" || ' ' || coalesce("sku", '') || ' ' || coalesce("description", ''))
) STORED;
CREATE INDEX "items_search_text_trgm" ON "items" USING GIN ("account_id", "search_text" gin_trgm_ops);
ALTER TABLE "systems" ADD COLUMN "search_text" TEXT GENERATED ALWAYS AS (
  lower("system_type" || ' ' || "name" || ' ' || coalesce("manufacturer", '') || ' ' || coalesce("model", '') || ' ' || coalesce("serial_number", ''))
) STORED;
CREATE INDEX "systems_search_text_trgm" ON "systems" USING GIN ("account_id", "search_text" gin_trgm_ops);
