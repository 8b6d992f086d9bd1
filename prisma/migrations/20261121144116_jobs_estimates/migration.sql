-- CreateTable
CREATE TABLE "jobs" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "number" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "labels" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "custom_fields" JSONB NOT NULL DEFAULT '{}',
    "customer_id" UUID,
    "site_id" UUID,
    "contact_id" UUID,
    "system_id" UUID,
    "estimate_id" UUID,
    "title" TEXT,
    "scope_of_work" TEXT,
    "work_description" TEXT,
    "customer_notes" TEXT,
    "reference" TEXT,
    "job_type" TEXT,
    "priority" TEXT,
    "due_date" DATE,
    "scheduled_start" TIMESTAMPTZ(3),
    "scheduled_end" TIMESTAMPTZ(3),
    "amount" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "search_text" TEXT NOT NULL DEFAULT '',
    "lock_version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "jobs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "job_assignments" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "job_id" UUID NOT NULL,
    "user_id" BIGINT NOT NULL,
    "position" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "job_assignments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "estimates" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "number" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "labels" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "custom_fields" JSONB NOT NULL DEFAULT '{}',
    "customer_id" UUID,
    "site_id" UUID,
    "contact_id" UUID,
    "system_id" UUID,
    "tax_rate_id" UUID,
    "title" TEXT,
    "description" TEXT,
    "scope_of_work" TEXT,
    "estimate_date" DATE,
    "expiration_date" DATE,
    "job_type" TEXT,
    "reference" TEXT,
    "customer_notes" TEXT,
    "amount" DECIMAL(14,2) NOT NULL DEFAULT 0,
    "converted_job_id" UUID,
    "converted_at" TIMESTAMPTZ(3),
    "search_text" TEXT NOT NULL DEFAULT '',
    "lock_version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "estimates_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "lineitems" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "job_id" UUID,
    "estimate_id" UUID,
    "position" INTEGER NOT NULL DEFAULT 0,
    "item_id" UUID,
    "description" TEXT,
    "quantity" DECIMAL(14,4) NOT NULL,
    "unit_price" DECIMAL(14,4) NOT NULL,
    "discount" DECIMAL(7,4) NOT NULL DEFAULT 0,
    "tax_rate_id" UUID,
    "taxable" BOOLEAN NOT NULL DEFAULT true,
    "labor_visible" BOOLEAN,
    "discount_amount" DECIMAL(14,2) NOT NULL,
    "tax_amount" DECIMAL(14,2) NOT NULL,
    "line_total" DECIMAL(14,2) NOT NULL,
    "tax_applied" BOOLEAN NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "lineitems_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "jobs_account_id_created_at_id_idx" ON "jobs"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "jobs_account_id_updated_at_id_idx" ON "jobs"("account_id", "updated_at", "id");

-- CreateIndex
CREATE INDEX "jobs_account_id_scheduled_start_id_idx" ON "jobs"("account_id", "scheduled_start", "id");

-- CreateIndex
CREATE UNIQUE INDEX "jobs_account_id_number_key" ON "jobs"("account_id", "number");

-- CreateIndex
CREATE INDEX "job_assignments_account_id_job_id_idx" ON "job_assignments"("account_id", "job_id");

-- CreateIndex
CREATE INDEX "estimates_account_id_created_at_id_idx" ON "estimates"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "estimates_account_id_updated_at_id_idx" ON "estimates"("account_id", "updated_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "estimates_account_id_number_key" ON "estimates"("account_id", "number");

-- CreateIndex
CREATE INDEX "lineitems_account_id_job_id_idx" ON "lineitems"("account_id", "job_id");

-- CreateIndex
CREATE INDEX "lineitems_account_id_estimate_id_idx" ON "lineitems"("account_id", "estimate_id");


-- Hand-written: what schema.prisma cannot express (see docs/migrations.md).
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers"("id");
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_site_id_fkey" FOREIGN KEY ("site_id") REFERENCES "sites"("id");
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_contact_id_fkey" FOREIGN KEY ("contact_id") REFERENCES "contacts"("id");
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_system_id_fkey" FOREIGN KEY ("system_id") REFERENCES "systems"("id");
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_estimate_id_fkey" FOREIGN KEY ("estimate_id") REFERENCES "estimates"("id");
ALTER TABLE "job_assignments" ADD CONSTRAINT "job_assignments_job_id_fkey" FOREIGN KEY ("job_id") REFERENCES "jobs"("id") ON DELETE CASCADE;
ALTER TABLE "job_assignments" ADD CONSTRAINT "job_assignments_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id");
ALTER TABLE "estimates" ADD CONSTRAINT "estimates_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers"("id");
ALTER TABLE "estimates" ADD CONSTRAINT "estimates_site_id_fkey" FOREIGN KEY ("site_id") REFERENCES "sites"("id");
ALTER TABLE "estimates" ADD CONSTRAINT "estimates_contact_id_fkey" FOREIGN KEY ("contact_id") REFERENCES "contacts"("id");
ALTER TABLE "estimates" ADD CONSTRAINT "estimates_system_id_fkey" FOREIGN KEY ("system_id") REFERENCES "systems"("id");
ALTER TABLE "estimates" ADD CONSTRAINT "estimates_tax_rate_id_fkey" FOREIGN KEY ("tax_rate_id") REFERENCES "tax_rates"("id");
ALTER TABLE "estimates" ADD CONSTRAINT "estimates_converted_job_id_fkey" FOREIGN KEY ("converted_job_id") REFERENCES "jobs"("id");
ALTER TABLE "lineitems" ADD CONSTRAINT "lineitems_job_id_fkey" FOREIGN KEY ("job_id") REFERENCES "jobs"("id") ON DELETE CASCADE;
ALTER TABLE "lineitems" ADD CONSTRAINT "lineitems_estimate_id_fkey" FOREIGN KEY ("estimate_id") REFERENCES "estimates"("id") ON DELETE CASCADE;
ALTER TABLE "lineitems" ADD CONSTRAINT "lineitems_item_id_fkey" FOREIGN KEY ("item_id") REFERENCES "items"("id");
ALTER TABLE "lineitems" ADD CONSTRAINT "lineitems_tax_rate_id_fkey" FOREIGN KEY ("tax_rate_id") REFERENCES "tax_rates"("id");
ALTER TABLE "lineitems" ADD CONSTRAINT "lineitems_one_parent" CHECK (num_nonnulls("job_id", "estimate_id") = 1);
CREATE INDEX "jobs_search_text_trgm" ON "jobs" USING GIN ("account_id", "search_text" gin_trgm_ops);
CREATE INDEX "estimates_search_text_trgm" ON "estimates" USING GIN ("account_id", "search_text" gin_trgm_ops);
