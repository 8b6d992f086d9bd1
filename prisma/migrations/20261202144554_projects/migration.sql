-- AlterTable
ALTER TABLE "estimates" ADD COLUMN     "project_id" UUID;

-- AlterTable
ALTER TABLE "jobs" ADD COLUMN     "project_id" UUID;

-- CreateTable
CREATE TABLE "projects" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "number" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "customer_id" UUID NOT NULL,
    "site_id" UUID,
    "description" TEXT,
    "start_date" DATE,
    "end_date" DATE,
    "budget_amount" DECIMAL(14,2),
    "status" TEXT NOT NULL,
    "labels" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "custom_fields" JSONB NOT NULL DEFAULT '{}',
    "lock_version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "projects_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "project_users" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "user_id" BIGINT NOT NULL,
    "position" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "project_users_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "projects_account_id_created_at_id_idx" ON "projects"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "projects_account_id_updated_at_id_idx" ON "projects"("account_id", "updated_at", "id");

-- CreateIndex
CREATE INDEX "projects_account_id_name_id_idx" ON "projects"("account_id", "name", "id");

-- CreateIndex
CREATE INDEX "projects_account_id_number_id_idx" ON "projects"("account_id", "number", "id");

-- CreateIndex
CREATE INDEX "projects_account_id_status_id_idx" ON "projects"("account_id", "status", "id");

-- CreateIndex
CREATE INDEX "projects_account_id_start_date_id_idx" ON "projects"("account_id", "start_date", "id");

-- CreateIndex
CREATE INDEX "projects_account_id_end_date_id_idx" ON "projects"("account_id", "end_date", "id");

-- CreateIndex
CREATE INDEX "projects_account_id_customer_id_idx" ON "projects"("account_id", "customer_id");

-- CreateIndex
CREATE INDEX "projects_account_id_site_id_idx" ON "projects"("account_id", "site_id");

-- CreateIndex
CREATE UNIQUE INDEX "projects_account_id_number_key" ON "projects"("account_id", "number");

-- CreateIndex
CREATE INDEX "project_users_account_id_user_id_idx" ON "project_users"("account_id", "user_id");

-- CreateIndex
CREATE UNIQUE INDEX "project_users_account_id_project_id_user_id_key" ON "project_users"("account_id", "project_id", "user_id");

-- CreateIndex
CREATE INDEX "estimates_account_id_project_id_created_at_id_idx" ON "estimates"("account_id", "project_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "jobs_account_id_project_id_created_at_id_idx" ON "jobs"("account_id", "project_id", "created_at", "id");

-- Hand-written: the text q searches (project: list.search), with its trigram index led by account_id.
ALTER TABLE "projects" ADD COLUMN "search_text" TEXT GENERATED ALWAYS AS (lower(coalesce("name", '') || ' ' || coalesce("number", '') || ' ' || coalesce("status", '') || ' ' || coalesce("description", ''))) STORED;
CREATE INDEX "projects_search_text_trgm" ON "projects" USING GIN ("account_id", "search_text" gin_trgm_ops);
