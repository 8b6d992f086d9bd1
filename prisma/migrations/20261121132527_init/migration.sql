-- CreateTable
CREATE TABLE "accounts" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "sandbox" BOOLEAN NOT NULL DEFAULT false,
    "api_access" BOOLEAN NOT NULL DEFAULT true,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "deactivation_reason" TEXT,
    "modules" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "users" (
    "id" BIGSERIAL NOT NULL,
    "account_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "role" TEXT NOT NULL DEFAULT 'admin',
    "active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "user_id" BIGINT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "scopes" TEXT[],
    "api_version" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "replaced_by_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "signing_keys" (
    "id" TEXT NOT NULL,
    "secret" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retired_at" TIMESTAMPTZ(3),

    CONSTRAINT "signing_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "statuses" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "related_name" TEXT NOT NULL,
    "display_name" TEXT NOT NULL,
    "position" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "statuses_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "labels" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "related_name" TEXT NOT NULL,
    "display_name" TEXT NOT NULL,
    "position" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "labels_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "custom_field_definitions" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "related_name" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "field_type" TEXT NOT NULL,
    "options" TEXT[],
    "required" BOOLEAN NOT NULL DEFAULT false,
    "position" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "custom_field_definitions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "number_sequences" (
    "account_id" UUID NOT NULL,
    "resource" TEXT NOT NULL,
    "last_value" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "number_sequences_pkey" PRIMARY KEY ("account_id","resource")
);

-- CreateTable
CREATE TABLE "events" (
    "seq" BIGSERIAL NOT NULL,
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "topic" TEXT NOT NULL,
    "resource" TEXT NOT NULL,
    "record_id" UUID NOT NULL,
    "action" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "actor" JSONB NOT NULL,
    "request_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "events_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "customers" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "number" TEXT NOT NULL,
    "organization" TEXT NOT NULL,
    "main_phone" TEXT,
    "fax" TEXT,
    "website" TEXT,
    "description" TEXT,
    "reference" TEXT,
    "assignee_id" BIGINT,
    "status" TEXT NOT NULL,
    "labels" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "customer_notes" TEXT,
    "custom_fields" JSONB NOT NULL DEFAULT '{}',
    "primary_site_address" TEXT,
    "lock_version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "customers_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "users_account_id_email_key" ON "users"("account_id", "email");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_token_hash_key" ON "api_keys"("token_hash");

-- CreateIndex
CREATE INDEX "api_keys_account_id_idx" ON "api_keys"("account_id");

-- CreateIndex
CREATE INDEX "statuses_account_id_related_name_idx" ON "statuses"("account_id", "related_name");

-- CreateIndex
CREATE INDEX "labels_account_id_related_name_idx" ON "labels"("account_id", "related_name");

-- CreateIndex
CREATE INDEX "custom_field_definitions_account_id_related_name_idx" ON "custom_field_definitions"("account_id", "related_name");

-- CreateIndex
CREATE UNIQUE INDEX "events_id_key" ON "events"("id");

-- CreateIndex
CREATE INDEX "events_account_id_seq_idx" ON "events"("account_id", "seq");

-- CreateIndex
CREATE INDEX "customers_account_id_created_at_id_idx" ON "customers"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "customers_account_id_updated_at_id_idx" ON "customers"("account_id", "updated_at", "id");

-- CreateIndex
CREATE INDEX "customers_account_id_organization_id_idx" ON "customers"("account_id", "organization", "id");

-- CreateIndex
CREATE INDEX "customers_account_id_number_id_idx" ON "customers"("account_id", "number", "id");

-- CreateIndex
CREATE INDEX "customers_account_id_status_id_idx" ON "customers"("account_id", "status", "id");

-- CreateIndex
CREATE UNIQUE INDEX "customers_account_id_number_key" ON "customers"("account_id", "number");

-- AddForeignKey
ALTER TABLE "users" ADD CONSTRAINT "users_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Hand-written: what schema.prisma cannot express (see docs/migrations.md).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE EXTENSION IF NOT EXISTS btree_gin;

-- Free-text search: one lower-cased text column per searchable table, one GIN trigram index led by account_id.
ALTER TABLE "customers" ADD COLUMN "search_text" TEXT GENERATED ALWAYS AS (
  lower(coalesce("organization", '') || ' ' || "number" || ' ' || "status" || ' ' ||
        coalesce("reference", '') || ' ' || coalesce("primary_site_address", ''))
) STORED;
CREATE INDEX "customers_search_text_trgm" ON "customers" USING GIN ("account_id", "search_text" gin_trgm_ops);

-- Organization is unique per tenant, case-insensitively, among live customers.
CREATE UNIQUE INDEX "customers_account_organization_ci_live" ON "customers" ("account_id", lower("organization")) WHERE "deleted_at" IS NULL;

-- Live lookup values are unique per tenant and resource.
CREATE UNIQUE INDEX "statuses_live_name" ON "statuses" ("account_id", "related_name", "display_name") WHERE "deleted_at" IS NULL;
CREATE UNIQUE INDEX "labels_live_name" ON "labels" ("account_id", "related_name", "display_name") WHERE "deleted_at" IS NULL;
CREATE UNIQUE INDEX "custom_field_definitions_live_name" ON "custom_field_definitions" ("account_id", "related_name", "name") WHERE "deleted_at" IS NULL;
