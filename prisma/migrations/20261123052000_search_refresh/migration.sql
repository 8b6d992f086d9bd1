-- Hand-written: what schema.prisma cannot express (see docs/migrations.md).

-- Search text of jobs and estimates, defined once here and kept fresh on both sides:
--   * the job and estimate services call it on every write of the record (afterWrite, through
--     src/resources/lineitems/parent-totals.ts);
--   * triggers call it when a related record changes what it contributes: a customer's organization, a site's
--     name or address, a user's name, a system's system_type, the job's assignments.
-- search_text serves q only: it is not part of a record's representation, so these updates never touch
-- updated_at or lock_version (a rename of the customer does not move the job's ETag).
--
-- The functions are VOLATILE plpgsql on purpose: each of their queries takes a fresh snapshot (READ COMMITTED),
-- so an UPDATE that waited for a concurrent writer's row lock recomputes the text from what that writer
-- committed, whichever of the two (job write, rename) came first.

-- jobs: number, job type, status, reference, labels, customer organization, site name and address, assignee
-- names (in assignment order), system type.
CREATE FUNCTION fl_job_search_text(j "jobs") RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  RETURN lower(concat_ws(' ', j."number", j."job_type", j."status", j."reference", array_to_string(j."labels", ' '),
    (SELECT "organization" FROM "customers" WHERE "id" = j."customer_id" AND "account_id" = j."account_id"),
    (SELECT concat_ws(' ', "site_name", "street", "street2", "city", "state", "zip_code") FROM "sites"
      WHERE "id" = j."site_id" AND "account_id" = j."account_id"),
    (SELECT string_agg(u."name", ' ' ORDER BY a."position", a."id") FROM "job_assignments" a
      JOIN "users" u ON u."id" = a."user_id" AND u."account_id" = a."account_id"
      WHERE a."job_id" = j."id" AND a."account_id" = j."account_id"),
    (SELECT "system_type" FROM "systems" WHERE "id" = j."system_id" AND "account_id" = j."account_id")));
END $$;

-- estimates: number, status, amount (two places), customer organization.
CREATE FUNCTION fl_estimate_search_text(e "estimates") RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  RETURN lower(concat_ws(' ', e."number", e."status", e."amount"::numeric(14,2)::text,
    (SELECT "organization" FROM "customers" WHERE "id" = e."customer_id" AND "account_id" = e."account_id")));
END $$;

-- One job's text, written only when it differs (assignment triggers and the job's own write often agree).
CREATE FUNCTION fl_refresh_job_search_text(account uuid, job uuid) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "jobs" j SET "search_text" = fl_job_search_text(j)
  WHERE j."account_id" = account AND j."id" = job AND j."search_text" IS DISTINCT FROM fl_job_search_text(j);
END $$;

-- customers.organization: jobs and estimates of the customer.
CREATE FUNCTION fl_customer_renamed_work() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "jobs" j SET "search_text" = fl_job_search_text(j) WHERE j."account_id" = NEW."account_id" AND j."deleted_at" IS NULL AND j."customer_id" = NEW."id";
  UPDATE "estimates" e SET "search_text" = fl_estimate_search_text(e) WHERE e."account_id" = NEW."account_id" AND e."deleted_at" IS NULL AND e."customer_id" = NEW."id";
  RETURN NULL;
END $$;
CREATE TRIGGER "customers_renamed_work" AFTER UPDATE OF "organization" ON "customers"
  FOR EACH ROW WHEN (OLD."organization" IS DISTINCT FROM NEW."organization") EXECUTE FUNCTION fl_customer_renamed_work();

-- sites: name and address of the jobs' site.
CREATE FUNCTION fl_site_readdressed_work() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "jobs" j SET "search_text" = fl_job_search_text(j) WHERE j."account_id" = NEW."account_id" AND j."deleted_at" IS NULL AND j."site_id" = NEW."id";
  RETURN NULL;
END $$;
CREATE TRIGGER "sites_readdressed_work" AFTER UPDATE OF "site_name", "street", "street2", "city", "state", "zip_code" ON "sites"
  FOR EACH ROW WHEN ((OLD."site_name", OLD."street", OLD."street2", OLD."city", OLD."state", OLD."zip_code")
    IS DISTINCT FROM (NEW."site_name", NEW."street", NEW."street2", NEW."city", NEW."state", NEW."zip_code"))
  EXECUTE FUNCTION fl_site_readdressed_work();

-- systems.system_type: jobs on the system.
CREATE FUNCTION fl_system_retyped_work() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "jobs" j SET "search_text" = fl_job_search_text(j) WHERE j."account_id" = NEW."account_id" AND j."deleted_at" IS NULL AND j."system_id" = NEW."id";
  RETURN NULL;
END $$;
CREATE TRIGGER "systems_retyped_work" AFTER UPDATE OF "system_type" ON "systems"
  FOR EACH ROW WHEN (OLD."system_type" IS DISTINCT FROM NEW."system_type") EXECUTE FUNCTION fl_system_retyped_work();

-- users.name: jobs the user is assigned to.
CREATE FUNCTION fl_user_renamed_work() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "jobs" j SET "search_text" = fl_job_search_text(j)
  WHERE j."account_id" = NEW."account_id" AND j."deleted_at" IS NULL
    AND j."id" IN (SELECT "job_id" FROM "job_assignments" WHERE "account_id" = NEW."account_id" AND "user_id" = NEW."id");
  RETURN NULL;
END $$;
CREATE TRIGGER "users_renamed_work" AFTER UPDATE OF "name" ON "users"
  FOR EACH ROW WHEN (OLD."name" IS DISTINCT FROM NEW."name") EXECUTE FUNCTION fl_user_renamed_work();

-- job_assignments: the job(s) an assignment is added to, removed from or moved between.
CREATE FUNCTION fl_job_assignment_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN PERFORM fl_refresh_job_search_text(OLD."account_id", OLD."job_id"); END IF;
  IF TG_OP <> 'DELETE' THEN PERFORM fl_refresh_job_search_text(NEW."account_id", NEW."job_id"); END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER "job_assignments_added_or_removed" AFTER INSERT OR DELETE ON "job_assignments"
  FOR EACH ROW EXECUTE FUNCTION fl_job_assignment_changed();
CREATE TRIGGER "job_assignments_changed" AFTER UPDATE OF "job_id", "user_id" ON "job_assignments"
  FOR EACH ROW WHEN ((OLD."job_id", OLD."user_id") IS DISTINCT FROM (NEW."job_id", NEW."user_id"))
  EXECUTE FUNCTION fl_job_assignment_changed();

-- The customer's primary site address (fl_site_changed, migration sites_contacts_leads) is written only when it
-- changes: most site edits then take no lock on the customer row, which a concurrent delete or rename of the
-- customer holds (the lock order customer -> site of those writes would otherwise meet site -> customer here).
CREATE OR REPLACE FUNCTION fl_refresh_primary_site_address(customer uuid) RETURNS void LANGUAGE plpgsql AS $$
DECLARE address text;
BEGIN
  SELECT concat_ws(' ', "street", "street2", "city", "state", "zip_code") INTO address FROM "sites"
  WHERE "customer_id" = customer AND "deleted_at" IS NULL
  ORDER BY "position", "created_at", "id" LIMIT 1;
  UPDATE "customers" SET "primary_site_address" = address
  WHERE "id" = customer AND "primary_site_address" IS DISTINCT FROM address;
END $$;

-- The lookups these triggers make (the customer and site ones are served by the jobs_/estimates_ customer_id
-- and site_id indexes of schema.prisma).
CREATE INDEX "jobs_account_id_system_id_idx" ON "jobs" ("account_id", "system_id");
CREATE INDEX "job_assignments_account_id_user_id_idx" ON "job_assignments" ("account_id", "user_id");

-- Rows written before this migration: recompute once (no updated_at or lock_version change).
UPDATE "jobs" j SET "search_text" = fl_job_search_text(j);
UPDATE "estimates" e SET "search_text" = fl_estimate_search_text(e);
