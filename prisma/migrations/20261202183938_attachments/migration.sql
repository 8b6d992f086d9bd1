-- AlterTable
ALTER TABLE "custom_field_definitions" ADD COLUMN     "max_size_bytes" INTEGER;

-- CreateTable
CREATE TABLE "stored_files" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "storage_key" TEXT NOT NULL,
    "filename" TEXT NOT NULL,
    "content_type" TEXT NOT NULL,
    "size" BIGINT NOT NULL DEFAULT 0,
    "sha256" TEXT,
    "record_class" TEXT NOT NULL,
    "record_id" UUID NOT NULL,
    "field_id" UUID NOT NULL,
    "state" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "released_at" TIMESTAMPTZ(3),

    CONSTRAINT "stored_files_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "stored_files_account_id_record_class_record_id_idx" ON "stored_files"("account_id", "record_class", "record_id");

-- CreateIndex
CREATE INDEX "stored_files_state_released_at_idx" ON "stored_files"("state", "released_at");

-- CreateIndex
CREATE INDEX "stored_files_state_created_at_idx" ON "stored_files"("state", "created_at");

