import { describe, expect, it } from 'vitest';
import { highRateLimits, useTenant, useTestApp } from '../helpers/app.ts';
import { expectProblem } from '../helpers/problem.ts';

// Names a client chooses (sort fields, filter names, body fields, custom field keys, lookup names) are looked up
// among what is declared, never among the properties every JavaScript object inherits: "constructor",
// "__proto__" or "toString" are unknown names with the ordinary 4xx answer, not a 500.

const inherited = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];
const t = useTestApp({ rateLimits: highRateLimits });
const { api, gql } = useTenant(t);

describe('inherited property names', () => {
  it('are unknown sort fields (400 sort.invalid) and unknown filters (400 filter.invalid) on every list', async () => {
    for (const list of ['customers', 'sites', 'contacts', 'leads', 'jobs', 'estimates', 'items', 'systems', 'tax_rates']) {
      for (const name of inherited) {
        expectProblem(await api.get(`/${list}?sort=${name}`), { status: 400, code: 'sort.invalid' });
        expectProblem(await api.get(`/${list}?sort=-${name}`), { status: 400, code: 'sort.invalid' });
        expectProblem(await api.get(`/${list}?${name}=1`), { status: 400, code: 'filter.invalid' });
        expectProblem(await api.get(`/${list}?${name}[in]=1`), { status: 400, code: 'filter.invalid' });
      }
    }
  });

  it('are refused body fields (422 validation.failed naming them), nested custom_fields keys included', async () => {
    for (const name of inherited) {
      const res = await api.post('/customers', { customer: { organization: `Proto ${name}`, [name]: 1 } });
      expect(res.status, res.text).toBe(422);
      const custom = await api.post('/customers', { customer: { organization: `Proto cf ${name}`, custom_fields: { [name]: 'x' } } });
      expect(custom.status, custom.text).toBe(422);
    }
    // A JSON text can carry "__proto__" as an own key, which JSON.parse keeps as one.
    const raw = await api.request('POST', '/customers', { raw: '{"customer": {"organization": "Proto raw", "__proto__": {"status": "Inactive"}}}', headers: { 'content-type': 'application/json' } });
    expect(raw.status, raw.text).toBe(422);
  });

  it('are unknown lookup classes and unknown list arguments over GraphQL too', async () => {
    for (const name of inherited) {
      expectProblem(await api.get(`/statuses?related_name=${name}`), { status: 400, code: 'filter.invalid' });
    }
    for (const name of inherited) {
      // Sort fields are an enum: an inherited name is no value of it, refused by the schema before anything runs.
      const sorted = await gql('query($sort: CustomerSort) { customers(sort: $sort) { nodes { id } } }', { sort: { field: name } });
      expect(sorted.status, JSON.stringify(sorted.body)).toBe(400);
      expect(sorted.body.errors?.[0]?.message).toContain('CustomerSortField');
      // Names looked up by the server: a status (no record holds it: it matches nothing, on both APIs) and a custom
      // field id (no definition has it: refused).
      const status = await gql('query($filter: CustomerFilter) { customers(filter: $filter) { nodes { id } } }', { filter: { status: name } });
      expect(status.body, JSON.stringify(status.body)).toEqual({ data: { customers: { nodes: [] } } });
      expect((await api.get(`/customers?status=${encodeURIComponent(name)}`)).body.data).toEqual([]);
      const custom = await gql('query($filter: CustomerFilter) { customers(filter: $filter) { nodes { id } } }', { filter: { customFields: [{ id: name, value: 'x' }] } });
      expect(custom.body.errors?.[0]?.extensions?.code, JSON.stringify(custom.body)).toBe('filter.invalid');
    }
  });
});
