-- CreateTable
CREATE TABLE "notes" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "notable_type" TEXT NOT NULL,
    "notable_id" UUID NOT NULL,
    "body" TEXT NOT NULL,
    "pinned" BOOLEAN NOT NULL DEFAULT false,
    "author_id" BIGINT NOT NULL,
    "lock_version" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),

    CONSTRAINT "notes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "notes_account_id_notable_id_created_at_id_idx" ON "notes"("account_id", "notable_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "notes_account_id_notable_id_updated_at_id_idx" ON "notes"("account_id", "notable_id", "updated_at", "id");

-- CreateIndex
CREATE INDEX "notes_account_id_created_at_id_idx" ON "notes"("account_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "notes_account_id_updated_at_id_idx" ON "notes"("account_id", "updated_at", "id");

