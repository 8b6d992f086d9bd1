-- AlterTable
ALTER TABLE "webhook_endpoints" ADD COLUMN     "verified_url" TEXT;

-- Hand-written: what schema.prisma cannot express (see docs/migrations.md).

-- An endpoint is verified only at a URL that echoed a challenge (src/events/endpoint-states.ts). Endpoints
-- verified before this column existed were verified at their current URL: a URL change made them unverified.
-- Disabled ones keep no proof: re-enabling them with status verified runs the handshake again.
UPDATE "webhook_endpoints" SET "verified_url" = "url" WHERE "status" = 'verified';
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_verified_at_url_check"
  CHECK ("status" <> 'verified' OR "verified_url" IS NOT DISTINCT FROM "url");
