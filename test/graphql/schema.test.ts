import { readFileSync } from 'node:fs';
import { buildSchema as parseSdl, printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { resources } from '../../src/domain.ts';
import { serves } from '../../src/kernel/resource.ts';
import { camelCase } from '../../src/kernel/naming.ts';
import { printedSchema } from '../../src/graphql/schema/schema.ts';

describe('schema.graphql', () => {
  it('is the schema printed from the code (run npm run schema:print when this fails)', () => {
    const committed = readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8');
    expect(committed, 'schema.graphql is stale: run npm run artifacts').toBe(printedSchema());
  });

  it('is valid SDL with the queries and mutations of every declared resource', () => {
    const schema = parseSdl(printedSchema());
    const query = schema.getQueryType()!.getFields();
    const mutation = schema.getMutationType()!.getFields();
    for (const name of ['me', 'statuses', 'labels', 'customFieldDefinitions']) expect(query[name], name).toBeDefined();
    for (const def of resources) {
      const type = def.className;
      expect(query[camelCase(def.name)], def.name).toBeDefined();
      // A nested resource (notes) is listed on its parents' types only, and created naming its parent.
      expect(query[camelCase(def.plural)] !== undefined, def.plural).toBe(serves(def, 'list'));
      // A mutation for each write the resource serves, and none for the others (a ledger, a derived table).
      for (const verb of ['create', 'update', 'delete'] as const) expect(mutation[`${verb}${type}`] !== undefined, `${verb}${type}`).toBe(serves(def, verb) || (verb === 'create' && Boolean(def.nested)));
    }
    expect(printSchema(schema)).toContain('customers(');
  });

  it('has the contact linkage and lead conversion operations and the relations between customers, leads, sites and contacts', () => {
    const schema = parseSdl(printedSchema());
    expect(Object.keys(schema.getQueryType()!.getFields())).toContain('contactLinkages');
    const mutation = schema.getMutationType()!.getFields();
    for (const name of ['linkContact', 'updateContactLinkage', 'unlinkContact', 'convertLead']) expect(mutation[name], name).toBeDefined();
    const fieldsOf = (type: string) => Object.keys((schema.getType(type) as unknown as { getFields(): object }).getFields());
    expect(fieldsOf('Customer')).toEqual(expect.arrayContaining(['sites', 'contacts', 'contactLinkages', 'primaryContact']));
    expect(fieldsOf('Lead')).toEqual(expect.arrayContaining(['sites', 'contacts', 'contactLinkages', 'primaryContact', 'convertedCustomer']));
    expect(fieldsOf('Site')).toEqual(expect.arrayContaining(['customer', 'lead', 'contacts', 'contactLinkages', 'primaryContact']));
    expect(fieldsOf('Contact')).toEqual(expect.arrayContaining(['linkages', 'phoneNumbers']));
    expect(fieldsOf('ContactLinkage')).toEqual(expect.arrayContaining(['contact', 'linkable', 'primary', 'relationshipType']));
  });
});
