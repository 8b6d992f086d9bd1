import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, useTenant, useTestApp } from '../helpers/app.ts';
import { createCustomer } from '../helpers/factories/customers.ts';
import { followPages, nextLink } from '../helpers/list-pages.ts';
import { expectProblem } from '../helpers/problem.ts';

// custom_fields[<field_id>] list filters: matching per field type, AND with each other and with filters, q,
// sort and cursor; unknown ids, malformed values and attachment fields answer 400 filter.invalid.

const t = useTestApp({ rateLimits: highRateLimits });
const { tenant, api } = useTenant(t);
const f: Record<string, string> = {};
const c: Record<string, string> = {};

beforeAll(async () => {
  const add = async (name: string, type: string, options?: string[], relatedName = 'Customer', accountId = tenant.accountId) =>
    (await t.app.domain.admin.addCustomField({ accountId, relatedName, name, type, options })).id;
  f.text = await add('Region', 'text');
  f.number = await add('Fleet size', 'number');
  f.date = await add('Contract start', 'date');
  f.checkbox = await add('Tax exempt', 'checkbox');
  f.select = await add('Tier', 'select', ['Bronze', 'Silver', 'Gold']);
  f.multiselect = await add('Trades', 'multiselect', ['HVAC', 'Plumbing', 'Electrical']);
  f.attachment = await add('Signed contract', 'attachment');
  f.job = await add('Job field', 'text', undefined, 'Job');
  f.foreign = await add('Foreign', 'text', undefined, 'Customer', (await t.tenant()).accountId);

  const make = async (organization: string, values: Record<string, unknown>) =>
    (await createCustomer(api, { organization, custom_fields: Object.fromEntries(Object.entries(values).map(([k, v]) => [f[k], v])) })).id;
  c.one = await make('Alpha Heating', { text: 'North', number: 5, date: '2026-03-01', checkbox: true, select: 'Gold', multiselect: ['HVAC', 'Plumbing'] });
  c.two = await make('Beta Plumbing', { text: 'north', number: 5.5, date: '2026-03-02', checkbox: false, select: 'Silver', multiselect: ['HVAC'] });
  c.three = await make('Gamma Electric', { text: 'North Pole', number: 10, date: '2026-03-01', checkbox: true, select: 'Gold', multiselect: ['Electrical'] });
  c.four = await make('Delta Empty', {});
});

async function matching(filters: Record<string, string>, extra: Record<string, string> = {}): Promise<string[]> {
  const params = new URLSearchParams(extra);
  for (const [field, value] of Object.entries(filters)) params.append(`custom_fields[${f[field]}]`, value);
  const res = await api.get(`/customers?${params.toString()}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data.map((r: { id: string }) => r.id).sort();
}
const sorted = (...ids: string[]) => [...ids].sort();

describe('custom_fields[<id>] filters', () => {
  it('match text and select fields by exact string', async () => {
    expect(await matching({ text: 'North' })).toEqual([c.one]);
    expect(await matching({ text: 'north' })).toEqual([c.two]);
    expect(await matching({ text: 'Nor' })).toEqual([]);
    expect(await matching({ select: 'Gold' })).toEqual(sorted(c.one, c.three));
  });

  it('match number fields by numeric value', async () => {
    expect(await matching({ number: '5' })).toEqual([c.one]);
    expect(await matching({ number: '5.0' })).toEqual([c.one]);
    expect(await matching({ number: '5.5' })).toEqual([c.two]);
    expect(await matching({ number: '10' })).toEqual([c.three]);
    expect(await matching({ number: '7' })).toEqual([]);
  });

  it('match date fields given as YYYY-MM-DD', async () => {
    expect(await matching({ date: '2026-03-01' })).toEqual(sorted(c.one, c.three));
    expect(await matching({ date: '2026-03-02' })).toEqual([c.two]);
    expect(await matching({ date: '2026-03-03' })).toEqual([]);
  });

  it('match checkbox fields with true and false', async () => {
    expect(await matching({ checkbox: 'true' })).toEqual(sorted(c.one, c.three));
    const unchecked = await matching({ checkbox: 'false' });
    expect(unchecked).toContain(c.two);
    expect(unchecked).not.toContain(c.one);
    expect(unchecked).not.toContain(c.three);
  });

  it('match multiselect fields whose selection contains the value', async () => {
    expect(await matching({ multiselect: 'HVAC' })).toEqual(sorted(c.one, c.two));
    expect(await matching({ multiselect: 'Plumbing' })).toEqual([c.one]);
    expect(await matching({ multiselect: 'Electrical' })).toEqual([c.three]);
  });

  it('combine several keys with AND', async () => {
    expect(await matching({ checkbox: 'true', select: 'Gold', date: '2026-03-01' })).toEqual(sorted(c.one, c.three));
    expect(await matching({ checkbox: 'true', select: 'Gold', date: '2026-03-01', multiselect: 'HVAC' })).toEqual([c.one]);
    expect(await matching({ checkbox: 'true', text: 'north' })).toEqual([]);
  });

  it('combine with q and with the other filters', async () => {
    expect(await matching({ checkbox: 'true' }, { q: 'gamma' })).toEqual([c.three]);
    expect(await matching({ checkbox: 'true' }, { q: 'beta' })).toEqual([]);
    expect(await matching({ select: 'Gold' }, { organization: 'Alpha Heating' })).toEqual([c.one]);
    expect(await matching({ multiselect: 'HVAC' }, { status: 'Active', 'created_at[gte]': '2020-01-01' })).toEqual(sorted(c.one, c.two));
    expect(await matching({ multiselect: 'HVAC' }, { status: 'Inactive' })).toEqual([]);
  });

  it('combine with sort and cursor across pages', async () => {
    const url = `${t.url}/api/v2/customers?custom_fields[${f.checkbox}]=true&sort=-organization&limit=1`;
    const { records, pages } = await followPages(tenant.token, url);
    expect(records.map((r) => r.organization)).toEqual(['Gamma Electric', 'Alpha Heating']);
    expect(pages).toHaveLength(2);
    expect(new URL(nextLink(pages[0])!).searchParams.get(`custom_fields[${f.checkbox}]`)).toBe('true');
  });

  it('answer 400 filter.invalid naming an id that is not a custom field definition of customers in this account', async () => {
    for (const id of [randomUUID(), 'region', f.job, f.foreign]) {
      expectProblem(await api.get(`/customers?custom_fields[${id}]=x`), { status: 400, code: 'filter.invalid', detail: id });
    }
  });

  it('answer 400 filter.invalid for an attachment field', async () => {
    expectProblem(await api.get(`/customers?custom_fields[${f.attachment}]=x`), { status: 400, code: 'filter.invalid', detail: f.attachment });
  });

  const malformed: [string, string][] = [
    ['checkbox', 'yes'],
    ['checkbox', 'TRUE'],
    ['checkbox', '1'],
    ['date', '2026-02-30'],
    ['date', '03/01/2026'],
    ['date', '2026-03-01T00:00:00Z'],
    ['number', 'abc'],
    ['number', ''],
    ['number', 'Infinity'],
    ['select', 'gold'],
    ['select', 'Platinum'],
    ['multiselect', 'Roofing'],
  ];
  it.each(malformed)('answer 400 filter.invalid for a malformed %s value %j', async (type, value) => {
    expectProblem(await api.get(`/customers?custom_fields[${f[type]}]=${encodeURIComponent(value)}`), {
      status: 400,
      code: 'filter.invalid',
      detail: f[type],
    });
  });

  it('answer 400 filter.invalid for a repeated custom_fields key', async () => {
    expectProblem(await api.get(`/customers?custom_fields[${f.text}]=North&custom_fields[${f.text}]=South`), { status: 400, code: 'filter.invalid' });
  });
});
