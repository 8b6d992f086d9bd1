-- CreateTable
CREATE TABLE "purchase_orders" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "number" TEXT NOT NULL,
    "vendor_id" UUID NOT NULL,
    "location_id" UUID,
    "job_id" UUID,
    "order_date" DATE NOT NULL,
    "expected_date" DATE,
    "reference" TEXT,
    "memo" TEXT,
    "amount" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "received_at" TIMESTAMPTZ(3),
    "status" TEXT NOT NULL,
    "labels" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "custom_fields" JSONB NOT NULL DEFAULT '{}',
    "lock_version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "purchase_orders_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "purchase_order_lines" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "purchase_order_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "item_id" UUID,
    "description" TEXT NOT NULL,
    "quantity" DECIMAL(14,4) NOT NULL,
    "unit_cost" DECIMAL(14,4) NOT NULL,
    "line_total" DECIMAL(14,2) NOT NULL,
    "received_quantity" DECIMAL(14,4) NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "purchase_order_lines_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "purchase_order_receipts" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "purchase_order_id" UUID NOT NULL,
    "location_id" UUID,
    "received_date" DATE NOT NULL,
    "note" TEXT,
    "lock_version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "purchase_order_receipts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "purchase_order_receipt_lines" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "receipt_id" UUID NOT NULL,
    "position" INTEGER NOT NULL,
    "line_id" UUID NOT NULL,
    "item_id" UUID,
    "quantity" DECIMAL(14,4) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "purchase_order_receipt_lines_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "purchase_orders_account_id_created_at_id_idx" ON "purchase_orders"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "purchase_orders_account_id_updated_at_id_idx" ON "purchase_orders"("account_id", "updated_at", "id");

-- CreateIndex
CREATE INDEX "purchase_orders_account_id_number_id_idx" ON "purchase_orders"("account_id", "number", "id");

-- CreateIndex
CREATE INDEX "purchase_orders_account_id_status_id_idx" ON "purchase_orders"("account_id", "status", "id");

-- CreateIndex
CREATE INDEX "purchase_orders_account_id_order_date_id_idx" ON "purchase_orders"("account_id", "order_date", "id");

-- CreateIndex
CREATE INDEX "purchase_orders_account_id_expected_date_id_idx" ON "purchase_orders"("account_id", "expected_date", "id");

-- CreateIndex
CREATE INDEX "purchase_orders_account_id_vendor_id_idx" ON "purchase_orders"("account_id", "vendor_id");

-- CreateIndex
CREATE INDEX "purchase_orders_account_id_job_id_idx" ON "purchase_orders"("account_id", "job_id");

-- CreateIndex
CREATE UNIQUE INDEX "purchase_orders_account_id_number_key" ON "purchase_orders"("account_id", "number");

-- CreateIndex
CREATE INDEX "purchase_order_lines_account_id_purchase_order_id_idx" ON "purchase_order_lines"("account_id", "purchase_order_id");

-- CreateIndex
CREATE INDEX "purchase_order_receipts_account_id_created_at_id_idx" ON "purchase_order_receipts"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "purchase_order_receipts_account_id_received_date_id_idx" ON "purchase_order_receipts"("account_id", "received_date", "id");

-- CreateIndex
CREATE INDEX "purchase_order_receipts_account_id_purchase_order_id_idx" ON "purchase_order_receipts"("account_id", "purchase_order_id");

-- CreateIndex
CREATE INDEX "purchase_order_receipt_lines_account_id_receipt_id_idx" ON "purchase_order_receipt_lines"("account_id", "receipt_id");

-- Hand-written: the text q searches (purchase_order: list.search), with its trigram index led by account_id.
ALTER TABLE "purchase_orders" ADD COLUMN "search_text" TEXT GENERATED ALWAYS AS (lower(coalesce("number", '') || ' ' || coalesce("reference", '') || ' ' || coalesce("status", '') || ' ' || coalesce("memo", ''))) STORED;
CREATE INDEX "purchase_orders_search_text_trgm" ON "purchase_orders" USING GIN ("account_id", "search_text" gin_trgm_ops);
