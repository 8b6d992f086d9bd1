-- AlterTable
ALTER TABLE "estimates" ADD COLUMN     "deal_id" UUID;

-- CreateTable
CREATE TABLE "deals" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "number" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "customer_id" UUID,
    "lead_id" UUID,
    "value_amount" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "expected_close_date" DATE,
    "probability_percent" INTEGER,
    "source" TEXT,
    "owner_id" BIGINT,
    "description" TEXT,
    "status" TEXT NOT NULL,
    "labels" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "custom_fields" JSONB NOT NULL DEFAULT '{}',
    "lock_version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "deals_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tasks" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "number" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT,
    "due_date" DATE,
    "priority" TEXT NOT NULL DEFAULT 'normal',
    "priority_rank" INTEGER NOT NULL DEFAULT 1,
    "assignee_id" BIGINT,
    "taskable_type" TEXT,
    "taskable_id" UUID,
    "completed_at" TIMESTAMPTZ(3),
    "status" TEXT NOT NULL,
    "labels" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "custom_fields" JSONB NOT NULL DEFAULT '{}',
    "lock_version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "tasks_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "deals_account_id_created_at_id_idx" ON "deals"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "deals_account_id_updated_at_id_idx" ON "deals"("account_id", "updated_at", "id");

-- CreateIndex
CREATE INDEX "deals_account_id_number_id_idx" ON "deals"("account_id", "number", "id");

-- CreateIndex
CREATE INDEX "deals_account_id_name_id_idx" ON "deals"("account_id", "name", "id");

-- CreateIndex
CREATE INDEX "deals_account_id_status_id_idx" ON "deals"("account_id", "status", "id");

-- CreateIndex
CREATE INDEX "deals_account_id_value_amount_id_idx" ON "deals"("account_id", "value_amount", "id");

-- CreateIndex
CREATE INDEX "deals_account_id_expected_close_date_id_idx" ON "deals"("account_id", "expected_close_date", "id");

-- CreateIndex
CREATE INDEX "deals_account_id_customer_id_idx" ON "deals"("account_id", "customer_id");

-- CreateIndex
CREATE INDEX "deals_account_id_lead_id_idx" ON "deals"("account_id", "lead_id");

-- CreateIndex
CREATE INDEX "deals_account_id_owner_id_idx" ON "deals"("account_id", "owner_id");

-- CreateIndex
CREATE UNIQUE INDEX "deals_account_id_number_key" ON "deals"("account_id", "number");

-- CreateIndex
CREATE INDEX "tasks_account_id_created_at_id_idx" ON "tasks"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "tasks_account_id_updated_at_id_idx" ON "tasks"("account_id", "updated_at", "id");

-- CreateIndex
CREATE INDEX "tasks_account_id_number_id_idx" ON "tasks"("account_id", "number", "id");

-- CreateIndex
CREATE INDEX "tasks_account_id_title_id_idx" ON "tasks"("account_id", "title", "id");

-- CreateIndex
CREATE INDEX "tasks_account_id_status_id_idx" ON "tasks"("account_id", "status", "id");

-- CreateIndex
CREATE INDEX "tasks_account_id_due_date_id_idx" ON "tasks"("account_id", "due_date", "id");

-- CreateIndex
CREATE INDEX "tasks_account_id_priority_rank_id_idx" ON "tasks"("account_id", "priority_rank", "id");

-- CreateIndex
CREATE INDEX "tasks_account_id_assignee_id_idx" ON "tasks"("account_id", "assignee_id");

-- CreateIndex
CREATE INDEX "tasks_account_id_taskable_id_idx" ON "tasks"("account_id", "taskable_id");

-- CreateIndex
CREATE UNIQUE INDEX "tasks_account_id_number_key" ON "tasks"("account_id", "number");

-- CreateIndex
CREATE INDEX "estimates_account_id_deal_id_idx" ON "estimates"("account_id", "deal_id");

-- Hand-written: the text q searches (deal: list.search), with its trigram index led by account_id.
ALTER TABLE "deals" ADD COLUMN "search_text" TEXT GENERATED ALWAYS AS (lower(coalesce("name", '') || ' ' || coalesce("number", '') || ' ' || coalesce("status", '') || ' ' || coalesce("source", ''))) STORED;
CREATE INDEX "deals_search_text_trgm" ON "deals" USING GIN ("account_id", "search_text" gin_trgm_ops);

-- Hand-written: the text q searches (task: list.search), with its trigram index led by account_id.
ALTER TABLE "tasks" ADD COLUMN "search_text" TEXT GENERATED ALWAYS AS (lower(coalesce("title", '') || ' ' || coalesce("number", '') || ' ' || coalesce("status", '') || ' ' || coalesce("priority", ''))) STORED;
CREATE INDEX "tasks_search_text_trgm" ON "tasks" USING GIN ("account_id", "search_text" gin_trgm_ops);
