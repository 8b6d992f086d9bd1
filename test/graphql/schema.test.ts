import { readFileSync } from 'node:fs';
import { buildSchema as parseSdl, printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { resources } from '../../src/domain.ts';
import { camelCase } from '../../src/graphql/naming.ts';
import { printedSchema } from '../../src/graphql/schema.ts';

describe('schema.graphql', () => {
  it('is the schema printed from the code (run npm run schema:print when this fails)', () => {
    const committed = readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8');
    expect(committed, 'schema.graphql is stale: run npm run schema:print').toBe(printedSchema());
  });

  it('is valid SDL with the queries and mutations of every declared resource', () => {
    const schema = parseSdl(printedSchema());
    const query = schema.getQueryType()!.getFields();
    const mutation = schema.getMutationType()!.getFields();
    for (const name of ['me', 'statuses', 'labels', 'customFieldDefinitions']) expect(query[name], name).toBeDefined();
    for (const def of resources) {
      const type = def.className;
      expect(query[camelCase(def.name)], def.name).toBeDefined();
      expect(query[camelCase(def.plural)], def.plural).toBeDefined();
      for (const verb of ['create', 'update', 'delete']) expect(mutation[`${verb}${type}`], `${verb}${type}`).toBeDefined();
    }
    expect(printSchema(schema)).toContain('customers(');
  });
});
