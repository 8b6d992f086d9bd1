import { describe, expect, it } from 'vitest';
import { declaredSql } from '../../src/db/declared-sql.ts';
import { defineResource } from '../../src/kernel/define-resource.ts';
import { rangeOps } from '../../src/kernel/listing.ts';
import { pluralOf } from '../../src/kernel/naming.ts';
import { searchDescription, type ResourceDefinition } from '../../src/kernel/resource.ts';

// What a declaration derives from what it writes (src/kernel/define-resource.ts, naming.ts, list-declaration.ts,
// unique-fields.ts) and the SQL it implies (src/db/declared-sql.ts): rules checked here without starting the app.

const base = {
  description: 'A supplier of the tenant.',
  fields: {
    name: { kind: 'string', create: 'required', update: 'optional', nullable: false, unique: 'case_insensitive', description: 'Name.' },
    email: { kind: 'email', create: 'optional', update: 'optional', description: 'Email.' },
    rating: { kind: 'decimal', create: 'optional', update: 'optional', description: 'Rating.' },
    score: { kind: 'number', create: 'optional', update: 'optional', description: 'Score.' },
    preferred: { kind: 'boolean', create: 'optional', update: 'optional', description: 'Preferred.' },
  },
  conventions: { number: true, status: { defaults: ['Active'] }, softDelete: true },
} as const;

describe('a declaration', () => {
  it('derives its plural, table, scope, class and Prisma model from its noun, and keeps what it writes', () => {
    const vendor = defineResource({ ...base, name: 'vendor', list: { filters: {}, sorts: {}, defaultSort: 'created_at' } });
    expect([vendor.plural, vendor.table, vendor.scope, vendor.className, vendor.model]).toEqual(['vendors', 'vendors', 'vendors', 'Vendor', 'vendor']);
    const order = defineResource({ ...base, name: 'sales_order', list: { filters: {}, sorts: {}, defaultSort: 'created_at' } });
    expect([order.plural, order.className, order.model]).toEqual(['sales_orders', 'SalesOrder', 'salesOrder']);
    const level = defineResource({ ...base, name: 'stock_level', scope: 'inventory', list: { filters: {}, sorts: {}, defaultSort: 'created_at' } });
    expect([level.scope, level.table]).toEqual(['inventory', 'stock_levels']);
  });

  it('spells English plurals of the nouns the spec names', () => {
    expect(['vendor', 'company', 'day', 'tax', 'batch', 'ticket', 'property', 'asset'].map(pluralOf)).toEqual([
      'vendors',
      'companies',
      'days',
      'taxes',
      'batches',
      'tickets',
      'properties',
      'assets',
    ]);
  });

  it('types filters and sorts from the fields of the same name, conventions and timestamps included', () => {
    const vendor = defineResource({
      ...base,
      name: 'vendor',
      list: { filters: { name: ['eq'], preferred: ['eq'], status: ['eq', 'in'], created_at: rangeOps }, sorts: { number: true, created_at: true }, defaultSort: 'created_at' },
    });
    expect(vendor.list.filters).toEqual({
      name: { ops: ['eq'], type: 'string' },
      preferred: { ops: ['eq'], type: 'boolean' },
      status: { ops: ['eq', 'in'], type: 'string' },
      created_at: { ops: rangeOps, type: 'datetime' },
    });
    expect(vendor.list.sorts).toEqual({ number: { type: 'string' }, created_at: { type: 'datetime' } });
  });

  it('stops at a filter or sort that names no field, or a field lists cannot use, naming the resource and the name', () => {
    expect(() => defineResource({ ...base, name: 'vendor', list: { filters: { nmae: ['eq'] }, sorts: {}, defaultSort: 'created_at' } })).toThrow(
      'vendor: the filter "nmae" names no field of the resource',
    );
    expect(() => defineResource({ ...base, name: 'vendor', list: { filters: { score: ['eq'] }, sorts: {}, defaultSort: 'created_at' } })).toThrow(
      'vendor: the filter "score" is on a number field, which lists cannot filter on',
    );
    // A decimal is compared exactly (as numeric): lists filter and sort on it.
    const rated = defineResource({ ...base, name: 'vendor', list: { filters: { rating: rangeOps }, sorts: { rating: true }, defaultSort: 'created_at' } });
    expect([rated.list.filters.rating.type, rated.list.sorts.rating.type]).toEqual(['decimal', 'decimal']);
    expect(() => defineResource({ ...base, name: 'vendor', list: { filters: {}, sorts: { preferred: true }, defaultSort: 'created_at' } })).toThrow('boolean');
  });

  it('maps the unique indexes of its number and of its case-insensitive unique fields to the field they protect', () => {
    const vendor = defineResource({ ...base, name: 'vendor', list: { filters: {}, sorts: {}, defaultSort: 'created_at' } });
    expect(vendor.uniqueIndexes).toEqual({
      vendors_account_id_number_key: { field: 'number', message: 'has already been taken' },
      vendors_account_name_ci_live: { field: 'name', message: 'has already been taken' },
    });
  });

  it('describes q from its search fields unless it says more', () => {
    const list = { filters: {}, sorts: {}, defaultSort: 'created_at' };
    expect(searchDescription(defineResource({ ...base, name: 'vendor', list: { ...list, search: { fields: ['name', 'number', 'email'] } } }))).toBe('name, number and email');
    expect(searchDescription(defineResource({ ...base, name: 'vendor', list: { ...list, search: { fields: ['name'], text: 'name and the city of its sites' } } }))).toBe('name and the city of its sites');
    expect(searchDescription(defineResource({ ...base, name: 'vendor', list }))).toBeUndefined();
  });

  it('implies the SQL its migration needs: a generated search column with its trigram index, and its case-insensitive unique index', () => {
    const vendor = defineResource({ ...base, name: 'vendor', list: { filters: {}, sorts: {}, defaultSort: 'created_at', search: { fields: ['name', 'number', 'rating'] } } });
    const sql = declaredSql(vendor as unknown as ResourceDefinition);
    expect(sql).toContain(`ALTER TABLE "vendors" ADD COLUMN "search_text" TEXT GENERATED ALWAYS AS (lower(coalesce("name", '') || ' ' || coalesce("number", '') || ' ' || coalesce("rating"::text, ''))) STORED;`);
    expect(sql).toContain('CREATE INDEX "vendors_search_text_trgm" ON "vendors" USING GIN ("account_id", "search_text" gin_trgm_ops);');
    expect(sql).toContain('CREATE UNIQUE INDEX "vendors_account_name_ci_live" ON "vendors" ("account_id", lower("name")) WHERE "deleted_at" IS NULL;');
    const flagged = defineResource({ ...base, name: 'vendor', list: { filters: {}, sorts: {}, defaultSort: 'created_at', search: { fields: ['preferred'] } } });
    expect(() => declaredSql(flagged as unknown as ResourceDefinition)).toThrow('write search_text');
  });
});
