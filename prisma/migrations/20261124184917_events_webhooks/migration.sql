-- AlterTable
ALTER TABLE "events" ADD COLUMN     "details" JSONB;

-- CreateTable
CREATE TABLE "webhook_endpoints" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "description" TEXT,
    "topics" TEXT[],
    "status" TEXT NOT NULL,
    "paused_until" TIMESTAMPTZ(3),
    "consecutive_failures" INTEGER NOT NULL DEFAULT 0,
    "failing_since" TIMESTAMPTZ(3),
    "last_delivery_at" TIMESTAMPTZ(3),
    "last_delivery_status" INTEGER,
    "last_error" TEXT,
    "api_version" TEXT NOT NULL,
    "secret_ciphertext" TEXT NOT NULL,
    "previous_secret_ciphertext" TEXT,
    "previous_secret_expires_at" TIMESTAMPTZ(3),
    "lock_version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "event_id" UUID NOT NULL,
    "topic" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "status_code" INTEGER,
    "duration_ms" INTEGER NOT NULL,
    "error" TEXT,
    "next_attempt_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "event_cursors" (
    "name" TEXT NOT NULL,
    "seq" BIGINT NOT NULL,

    CONSTRAINT "event_cursors_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "server_keys" (
    "name" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "server_keys_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE INDEX "webhook_endpoints_account_id_created_at_id_idx" ON "webhook_endpoints"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "webhook_endpoints_account_id_status_idx" ON "webhook_endpoints"("account_id", "status");

-- CreateIndex
CREATE INDEX "webhook_deliveries_account_id_endpoint_id_created_at_id_idx" ON "webhook_deliveries"("account_id", "endpoint_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "events_account_id_record_id_seq_idx" ON "events"("account_id", "record_id", "seq");

-- CreateIndex
CREATE INDEX "events_created_at_idx" ON "events"("created_at");

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;
-- Hand-written: what schema.prisma cannot express (see docs/migrations.md).

-- The outbox in commit order. A sequence hands out numbers when rows are inserted, not when transactions
-- commit, so a reader following seq could pass a number whose transaction commits later and never see it.
-- Instead each event is renumbered at commit (a deferred constraint trigger), under one transaction-level
-- advisory lock held until the transaction has committed and become visible: the next committer numbers its
-- events after it. A reader that has seen seq N has seen every event that will ever commit below N, so GET
-- /events cursors, subscription resumes (afterSeq) and the webhook dispatcher never skip one. The same
-- trigger wakes every listener (LISTEN fieldline_events); PostgreSQL folds a transaction's identical
-- notifications into one. The cost: commits that carry events are serialized from this point (NOTIFY's own
-- commit lock already does that); see docs/decisions.md.
CREATE FUNCTION "events_number_at_commit"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(7243001);
  UPDATE "events" SET "seq" = nextval(pg_get_serial_sequence('events', 'seq')) WHERE "id" = NEW."id";
  PERFORM pg_notify('fieldline_events', '');
  RETURN NULL;
END;
$$;
CREATE CONSTRAINT TRIGGER "events_number_at_commit" AFTER INSERT ON "events"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION "events_number_at_commit"();

-- A webhook endpoint's status is one of the three the spec names; topics are never empty.
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_status_check" CHECK ("status" IN ('unverified', 'verified', 'disabled'));
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_topics_check" CHECK (cardinality("topics") > 0);
CREATE INDEX "webhook_endpoints_topics_gin" ON "webhook_endpoints" USING GIN ("topics");
