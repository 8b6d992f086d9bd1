

-- CreateTable
CREATE TABLE "leads" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "number" TEXT NOT NULL,
    "organization" TEXT,
    "first_name" TEXT,
    "last_name" TEXT,
    "email" TEXT,
    "phone" TEXT,
    "source" TEXT,
    "description" TEXT,
    "assignee_id" BIGINT,
    "status" TEXT NOT NULL,
    "labels" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "custom_fields" JSONB NOT NULL DEFAULT '{}',
    "converted_customer_id" UUID,
    "converted_at" TIMESTAMPTZ(3),
    "lock_version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "leads_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "system_options" (
    "id" UUID NOT NULL,
    "system_type" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "position" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "system_options_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sites" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "siteable_type" TEXT NOT NULL,
    "siteable_id" UUID NOT NULL,
    "customer_id" UUID,
    "lead_id" UUID,
    "site_name" TEXT NOT NULL,
    "street" TEXT NOT NULL,
    "street2" TEXT,
    "city" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "zip_code" TEXT,
    "description" TEXT,
    "latitude" DOUBLE PRECISION,
    "longitude" DOUBLE PRECISION,
    "recurring_instructions" TEXT,
    "custom_fields" JSONB NOT NULL DEFAULT '{}',
    "position" INTEGER NOT NULL,
    "system_option_id" UUID,
    "parent_name" TEXT,
    "lock_version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "sites_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "contacts" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "first_name" TEXT,
    "last_name" TEXT,
    "email" TEXT,
    "phone" TEXT,
    "mobile" TEXT,
    "title" TEXT,
    "contact_method" TEXT,
    "custom_fields" JSONB NOT NULL DEFAULT '{}',
    "linkable_type" TEXT,
    "linkable_id" UUID,
    "lock_version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "contacts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "phone_numbers" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "contact_id" UUID NOT NULL,
    "number" TEXT NOT NULL,
    "kind" TEXT NOT NULL DEFAULT 'mobile',
    "extension" TEXT,
    "position" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "phone_numbers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "contact_linkages" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "contact_id" UUID NOT NULL,
    "linkable_type" TEXT NOT NULL,
    "linkable_id" UUID NOT NULL,
    "relationship_type" TEXT NOT NULL DEFAULT 'associated',
    "is_primary" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "contact_linkages_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "leads_account_id_created_at_id_idx" ON "leads"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "leads_account_id_updated_at_id_idx" ON "leads"("account_id", "updated_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "leads_account_id_number_key" ON "leads"("account_id", "number");

-- CreateIndex
CREATE UNIQUE INDEX "system_options_system_type_name_key" ON "system_options"("system_type", "name");

-- CreateIndex
CREATE INDEX "sites_account_id_created_at_id_idx" ON "sites"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "sites_account_id_updated_at_id_idx" ON "sites"("account_id", "updated_at", "id");

-- CreateIndex
CREATE INDEX "sites_account_id_customer_id_idx" ON "sites"("account_id", "customer_id");

-- CreateIndex
CREATE INDEX "sites_account_id_lead_id_idx" ON "sites"("account_id", "lead_id");

-- CreateIndex
CREATE INDEX "contacts_account_id_created_at_id_idx" ON "contacts"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "contacts_account_id_updated_at_id_idx" ON "contacts"("account_id", "updated_at", "id");

-- CreateIndex
CREATE INDEX "phone_numbers_account_id_contact_id_idx" ON "phone_numbers"("account_id", "contact_id");

-- CreateIndex
CREATE INDEX "contact_linkages_account_id_linkable_type_linkable_id_idx" ON "contact_linkages"("account_id", "linkable_type", "linkable_id");

-- CreateIndex
CREATE UNIQUE INDEX "contact_linkages_contact_id_linkable_type_linkable_id_key" ON "contact_linkages"("contact_id", "linkable_type", "linkable_id");

-- AddForeignKey
ALTER TABLE "phone_numbers" ADD CONSTRAINT "phone_numbers_contact_id_fkey" FOREIGN KEY ("contact_id") REFERENCES "contacts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "contact_linkages" ADD CONSTRAINT "contact_linkages_contact_id_fkey" FOREIGN KEY ("contact_id") REFERENCES "contacts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Hand-written: what schema.prisma cannot express (see docs/migrations.md).

-- A site belongs to exactly one parent: siteable_type names it, the matching foreign key holds it.
ALTER TABLE "sites" ADD CONSTRAINT "sites_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "customers"("id");
ALTER TABLE "sites" ADD CONSTRAINT "sites_lead_id_fkey" FOREIGN KEY ("lead_id") REFERENCES "leads"("id");
ALTER TABLE "sites" ADD CONSTRAINT "sites_one_parent" CHECK (
  ("siteable_type" = 'Customer' AND "customer_id" = "siteable_id" AND "lead_id" IS NULL) OR
  ("siteable_type" = 'Lead' AND "lead_id" = "siteable_id" AND "customer_id" IS NULL)
);
ALTER TABLE "leads" ADD CONSTRAINT "leads_converted_customer_id_fkey" FOREIGN KEY ("converted_customer_id") REFERENCES "customers"("id");
ALTER TABLE "contact_linkages" ADD CONSTRAINT "contact_linkages_type" CHECK ("linkable_type" IN ('Customer', 'Lead', 'Site'));
ALTER TABLE "contact_linkages" ADD CONSTRAINT "contact_linkages_relationship_type" CHECK ("relationship_type" IN ('associated', 'billing', 'technical', 'decision_maker'));

-- At most one primary contact per record, whatever the code does under concurrency.
CREATE UNIQUE INDEX "contact_linkages_one_primary" ON "contact_linkages" ("account_id", "linkable_type", "linkable_id") WHERE "is_primary";

-- Free-text search columns.
ALTER TABLE "leads" ADD COLUMN "search_text" TEXT GENERATED ALWAYS AS (
  lower(coalesce("organization", '') || ' ' || coalesce("first_name", '') || ' ' || coalesce("last_name", '') || ' ' ||
        coalesce("email", '') || ' ' || coalesce("phone", '') || ' ' || "number" || ' ' || "status")
) STORED;
CREATE INDEX "leads_search_text_trgm" ON "leads" USING GIN ("account_id", "search_text" gin_trgm_ops);
ALTER TABLE "sites" ADD COLUMN "search_text" TEXT GENERATED ALWAYS AS (
  lower("site_name" || ' ' || "street" || ' ' || "city" || ' ' || "state" || ' ' || coalesce("zip_code", '') || ' ' ||
        coalesce("parent_name", ''))
) STORED;
CREATE INDEX "sites_search_text_trgm" ON "sites" USING GIN ("account_id", "search_text" gin_trgm_ops);
ALTER TABLE "contacts" ADD COLUMN "search_text" TEXT GENERATED ALWAYS AS (
  lower(coalesce("first_name", '') || ' ' || coalesce("last_name", '') || ' ' || coalesce("email", '') || ' ' ||
        coalesce("title", ''))
) STORED;
CREATE INDEX "contacts_search_text_trgm" ON "contacts" USING GIN ("account_id", "search_text" gin_trgm_ops);

-- Search text that spans tables is denormalised by triggers, so that every write path (a customer rename,
-- a lead conversion, a site reorder) keeps it right. These columns serve search only: they are not part of
-- a record's representation and do not move its ETag.

-- sites.parent_name: the parent's display name.
CREATE FUNCTION fl_site_parent_name() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."siteable_type" = 'Customer' THEN
    SELECT "organization" INTO NEW."parent_name" FROM "customers" WHERE "id" = NEW."customer_id";
  ELSE
    SELECT coalesce("organization", concat_ws(' ', "first_name", "last_name")) INTO NEW."parent_name" FROM "leads" WHERE "id" = NEW."lead_id";
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER "sites_parent_name" BEFORE INSERT OR UPDATE OF "siteable_type", "siteable_id", "customer_id", "lead_id" ON "sites"
  FOR EACH ROW EXECUTE FUNCTION fl_site_parent_name();

CREATE FUNCTION fl_customer_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "sites" SET "parent_name" = NEW."organization" WHERE "customer_id" = NEW."id";
  RETURN NULL;
END $$;
CREATE TRIGGER "customers_renamed" AFTER UPDATE OF "organization" ON "customers"
  FOR EACH ROW WHEN (OLD."organization" IS DISTINCT FROM NEW."organization") EXECUTE FUNCTION fl_customer_renamed();

CREATE FUNCTION fl_lead_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "sites" SET "parent_name" = coalesce(NEW."organization", concat_ws(' ', NEW."first_name", NEW."last_name")) WHERE "lead_id" = NEW."id";
  RETURN NULL;
END $$;
CREATE TRIGGER "leads_renamed" AFTER UPDATE OF "organization", "first_name", "last_name" ON "leads"
  FOR EACH ROW EXECUTE FUNCTION fl_lead_renamed();

-- customers.primary_site_address: the address of the customer's first live site (by position, then age).
CREATE FUNCTION fl_refresh_primary_site_address(customer uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "customers" SET "primary_site_address" = (
    SELECT concat_ws(' ', "street", "street2", "city", "state", "zip_code") FROM "sites"
    WHERE "customer_id" = customer AND "deleted_at" IS NULL
    ORDER BY "position", "created_at", "id" LIMIT 1
  ) WHERE "id" = customer;
END $$;
CREATE FUNCTION fl_site_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD."customer_id" IS NOT NULL THEN PERFORM fl_refresh_primary_site_address(OLD."customer_id"); END IF;
  IF TG_OP <> 'DELETE' AND NEW."customer_id" IS NOT NULL AND (TG_OP = 'INSERT' OR NEW."customer_id" IS DISTINCT FROM OLD."customer_id") THEN
    PERFORM fl_refresh_primary_site_address(NEW."customer_id");
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "sites_changed" AFTER INSERT OR UPDATE OR DELETE ON "sites" FOR EACH ROW EXECUTE FUNCTION fl_site_changed();

-- contacts.linkable_type / linkable_id: the contact's main linkage (where it is primary, otherwise its oldest).
CREATE FUNCTION fl_refresh_main_linkage(contact uuid) RETURNS void LANGUAGE plpgsql AS $$
DECLARE main record;
BEGIN
  SELECT "linkable_type", "linkable_id" INTO main FROM "contact_linkages"
  WHERE "contact_id" = contact ORDER BY "is_primary" DESC, "created_at", "id" LIMIT 1;
  UPDATE "contacts" SET "linkable_type" = main."linkable_type", "linkable_id" = main."linkable_id"
  WHERE "id" = contact AND ("linkable_type", "linkable_id") IS DISTINCT FROM (main."linkable_type", main."linkable_id");
END $$;
CREATE FUNCTION fl_linkage_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM fl_refresh_main_linkage(OLD."contact_id"); END IF;
  IF TG_OP <> 'DELETE' THEN PERFORM fl_refresh_main_linkage(NEW."contact_id"); END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "contact_linkages_changed" AFTER INSERT OR UPDATE OR DELETE ON "contact_linkages" FOR EACH ROW EXECUTE FUNCTION fl_linkage_changed();

-- The system options catalog (read-only lookup of equipment kinds).
INSERT INTO "system_options" ("id", "system_type", "name", "position") VALUES
  ('01900000-0000-7000-8000-000000000001', 'HVAC', 'Furnace', 1),
  ('01900000-0000-7000-8000-000000000002', 'HVAC', 'Air conditioner', 2),
  ('01900000-0000-7000-8000-000000000003', 'HVAC', 'Heat pump', 3),
  ('01900000-0000-7000-8000-000000000004', 'HVAC', 'Boiler', 4),
  ('01900000-0000-7000-8000-000000000005', 'Plumbing', 'Water heater', 5),
  ('01900000-0000-7000-8000-000000000006', 'Plumbing', 'Sump pump', 6),
  ('01900000-0000-7000-8000-000000000007', 'Plumbing', 'Water softener', 7),
  ('01900000-0000-7000-8000-000000000008', 'Electrical', 'Electrical panel', 8),
  ('01900000-0000-7000-8000-000000000009', 'Electrical', 'Generator', 9),
  ('01900000-0000-7000-8000-00000000000a', 'Maintenance', 'Roof', 10);
