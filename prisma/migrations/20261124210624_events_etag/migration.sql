-- AlterTable
ALTER TABLE "events" ADD COLUMN     "etag" TEXT;
