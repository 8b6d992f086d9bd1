-- Hand-written: what schema.prisma cannot express (see docs/migrations.md).

-- q on invoices and payments, like every other searchable list: a GIN trigram index led by account_id.
CREATE INDEX "invoices_search_text_trgm" ON "invoices" USING GIN ("account_id", "search_text" gin_trgm_ops);
CREATE INDEX "payments_search_text_trgm" ON "payments" USING GIN ("account_id", "search_text" gin_trgm_ops);
