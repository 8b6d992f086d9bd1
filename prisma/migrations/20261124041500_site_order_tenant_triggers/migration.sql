-- Hand-written: what schema.prisma cannot express (see docs/migrations.md).

-- The order of a customer's or a lead's sites, defined here only: by position, ties by age, then by id (so the
-- order is total). The parent's first live site in this order is its primary site (its billing address).
-- Whoever orders a parent's sites sorts by this key: `ORDER BY fl_site_order_key(s)` over a row s of "sites"
-- (the triggers below, and the services' raw SQL such as the lead conversion's).
CREATE TYPE "fl_site_order_key" AS ("position" integer, "created_at" timestamptz, "id" uuid);
CREATE FUNCTION fl_site_order_key(s "sites") RETURNS "fl_site_order_key" LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT ROW(s."position", s."created_at", s."id")::"fl_site_order_key"
$$;

-- The site triggers of migration sites_contacts_leads, redefined so that every row they read or write is the
-- triggering row's account's (account_id beside each id), and the primary site is chosen by fl_site_order_key.

-- customers.primary_site_address: the address of the customer's primary site, written only when it changes
-- (migration search_refresh says why). It now takes the account: the old one-argument function goes.
DROP FUNCTION fl_refresh_primary_site_address(uuid);
CREATE FUNCTION fl_refresh_primary_site_address(account uuid, customer uuid) RETURNS void LANGUAGE plpgsql AS $$
DECLARE address text;
BEGIN
  SELECT concat_ws(' ', s."street", s."street2", s."city", s."state", s."zip_code") INTO address FROM "sites" s
  WHERE s."account_id" = account AND s."customer_id" = customer AND s."deleted_at" IS NULL
  ORDER BY fl_site_order_key(s) LIMIT 1;
  UPDATE "customers" SET "primary_site_address" = address
  WHERE "account_id" = account AND "id" = customer AND "primary_site_address" IS DISTINCT FROM address;
END $$;
CREATE OR REPLACE FUNCTION fl_site_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD."customer_id" IS NOT NULL THEN PERFORM fl_refresh_primary_site_address(OLD."account_id", OLD."customer_id"); END IF;
  IF TG_OP <> 'DELETE' AND NEW."customer_id" IS NOT NULL AND (TG_OP = 'INSERT' OR NEW."customer_id" IS DISTINCT FROM OLD."customer_id") THEN
    PERFORM fl_refresh_primary_site_address(NEW."account_id", NEW."customer_id");
  END IF;
  RETURN NULL;
END $$;

-- sites.parent_name: the parent's display name.
CREATE OR REPLACE FUNCTION fl_site_parent_name() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW."siteable_type" = 'Customer' THEN
    SELECT "organization" INTO NEW."parent_name" FROM "customers" WHERE "account_id" = NEW."account_id" AND "id" = NEW."customer_id";
  ELSE
    SELECT coalesce("organization", concat_ws(' ', "first_name", "last_name")) INTO NEW."parent_name" FROM "leads"
    WHERE "account_id" = NEW."account_id" AND "id" = NEW."lead_id";
  END IF;
  RETURN NEW;
END $$;
CREATE OR REPLACE FUNCTION fl_customer_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "sites" SET "parent_name" = NEW."organization" WHERE "account_id" = NEW."account_id" AND "customer_id" = NEW."id";
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION fl_lead_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "sites" SET "parent_name" = coalesce(NEW."organization", concat_ws(' ', NEW."first_name", NEW."last_name"))
  WHERE "account_id" = NEW."account_id" AND "lead_id" = NEW."id";
  RETURN NULL;
END $$;

-- contacts.linkable_type / linkable_id (the contact's main linkage), the same way: the linkage's own account.
DROP FUNCTION fl_refresh_main_linkage(uuid);
CREATE FUNCTION fl_refresh_main_linkage(account uuid, contact uuid) RETURNS void LANGUAGE plpgsql AS $$
DECLARE main record;
BEGIN
  SELECT "linkable_type", "linkable_id" INTO main FROM "contact_linkages"
  WHERE "account_id" = account AND "contact_id" = contact ORDER BY "is_primary" DESC, "created_at", "id" LIMIT 1;
  UPDATE "contacts" SET "linkable_type" = main."linkable_type", "linkable_id" = main."linkable_id"
  WHERE "account_id" = account AND "id" = contact AND ("linkable_type", "linkable_id") IS DISTINCT FROM (main."linkable_type", main."linkable_id");
END $$;
CREATE OR REPLACE FUNCTION fl_linkage_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM fl_refresh_main_linkage(OLD."account_id", OLD."contact_id"); END IF;
  IF TG_OP <> 'DELETE' THEN PERFORM fl_refresh_main_linkage(NEW."account_id", NEW."contact_id"); END IF;
  RETURN NULL;
END $$;
