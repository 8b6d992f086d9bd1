import { beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, TestClock, useTenant, useTestApp } from '../helpers/app.ts';
import { createCustomer, updateCustomer } from '../helpers/factories/customers.ts';
import { client, type Client } from '../helpers/http.ts';
import { followPages, nextLink } from '../helpers/list-pages.ts';
import { expectProblem } from '../helpers/problem.ts';

// GET /customers: every list parameter and rules 1 and 4 of the spec's "Rules for lists" (the cursor rules 2
// and 3 are in cursors.test.ts). One tenant holds 60 customers built to have ties in created_at, updated_at
// and status, so that the id tie-breaker of keyset pagination is exercised.

const clock = new TestClock();
const t = useTestApp({ clock, rateLimits: highRateLimits });
let all: Record<string, any>[] = [];

const COUNT = 60;
const base = Date.parse('2026-01-05T08:00:00.000Z');
const groupTime = (group: number) => new Date(base + group * 60_000).toISOString();
const pad = (n: number) => String(n).padStart(2, '0');
const statusOf = (i: number) => ['Active', 'Inactive', 'Gold'][i % 3];

const { tenant, api } = useTenant(t);
beforeAll(async () => {
  await t.app.domain.admin.addLookup('status', { accountId: tenant.accountId, relatedName: 'Customer', name: 'Gold' });
  const created = [];
  for (let i = 0; i < COUNT; i++) {
    // Ten customers share each creation instant; organizations are a permutation of the creation order.
    clock.pin(groupTime(Math.floor(i / 10)));
    created.push(await createCustomer(api, { organization: `Org ${pad((i * 37) % COUNT)}`, reference: `REF-${pad(i)}` }));
  }
  for (let i = 0; i < COUNT; i++) {
    if (statusOf(i) === 'Active') continue;
    // Seven customers share each update instant.
    clock.pin(new Date(base + 3_600_000 + Math.floor(i / 7) * 60_000));
    created[i] = await updateCustomer(api, created[i], { status: statusOf(i) });
  }
  clock.release();
  all = created.map((c) => c.record);
});

function compareBy(field: string, descending: boolean) {
  return (a: Record<string, any>, b: Record<string, any>) => {
    const primary = a[field] < b[field] ? -1 : a[field] > b[field] ? 1 : 0;
    const order = primary !== 0 ? primary : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
    return descending ? -order : order;
  };
}

const ids = (records: readonly Record<string, any>[]): string[] => records.map((r) => r.id as string);
const expectedIds = (records: Record<string, any>[], sort: string) =>
  ids([...records].sort(compareBy(sort.replace(/^-/, ''), sort.startsWith('-'))));

describe('pagination and sort', () => {
  it('has the ties the ordering tests rely on', () => {
    expect(new Set(all.map((c) => c.created_at)).size).toBe(COUNT / 10);
    expect(new Set(all.map((c) => c.updated_at)).size).toBeLessThan(COUNT);
    expect(new Set(all.map((c) => c.status))).toEqual(new Set(['Active', 'Inactive', 'Gold']));
  });

  it('serves 25 records by default, newest first (-created_at), with has_more and a Link to the next page', async () => {
    const res = await api.get('/customers');
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'has_more', 'next_cursor']);
    expect(res.body.has_more).toBe(true);
    expect(ids(res.body.data)).toEqual(expectedIds(all, '-created_at').slice(0, 25));
    expect(res.body.data[0]).toEqual(all.find((c) => c.id === res.body.data[0].id));
    const next = nextLink(res);
    expect(next).not.toBeNull();
    const url = new URL(next!);
    expect(`${url.protocol}//${url.host}`).toBe(t.url);
    expect(url.pathname).toBe('/api/v2/customers');
    expect(url.searchParams.get('cursor')).toBeTruthy();
  });

  it('honours limit 1..100 and answers has_more false with no Link on the last page', async () => {
    const one = await api.get('/customers?limit=1');
    expect(one.body.data).toHaveLength(1);
    expect(one.body.has_more).toBe(true);
    const hundred = await api.get('/customers?limit=100');
    expect(hundred.body.data).toHaveLength(COUNT);
    expect(hundred.body.has_more).toBe(false);
    expect(hundred.headers.get('link')).toBeNull();
    const exact = await api.get(`/customers?limit=${COUNT}`);
    expect(exact.body.data).toHaveLength(COUNT);
    expect(exact.body.has_more).toBe(false);
    expect(exact.headers.get('link')).toBeNull();
    const oneShort = await api.get(`/customers?limit=${COUNT - 1}`);
    expect(oneShort.body.has_more).toBe(true);
    expect(nextLink(oneShort)).not.toBeNull();
  });

  it('answers 400 filter.invalid for a limit that is not an integer from 1', async () => {
    for (const limit of ['0', '-1', 'abc', '1.5', '', '1e2', ' 5']) {
      expectProblem(await api.get(`/customers?limit=${encodeURIComponent(limit)}`), { status: 400, code: 'filter.invalid', detail: 'limit' });
    }
  });

  it('answers 400 pagination.limit_too_large with max_limit 100 above 100', async () => {
    for (const limit of ['101', '1000', '999999']) {
      const body = expectProblem(await api.get(`/customers?limit=${limit}`), { status: 400, code: 'pagination.limit_too_large' });
      expect(body.max_limit).toBe(100);
    }
  });

  const sorts = ['created_at', 'updated_at', 'organization', 'number', 'status'].flatMap((f) => [f, `-${f}`]);
  it.each(sorts)('pages through every record exactly once, in order, following Link with sort=%s', async (sort) => {
    const expected = expectedIds(all, sort);
    const { records, pages } = await followPages(tenant.token, `${t.url}/api/v2/customers?sort=${sort}&limit=7`);
    expect(pages).toHaveLength(Math.ceil(COUNT / 7));
    expect(ids(records)).toEqual(expected);
    for (const page of pages.slice(0, -1)) expect(page.body.data).toHaveLength(7);
    const single = await api.get(`/customers?sort=${sort}&limit=100`);
    expect(ids(single.body.data)).toEqual(expected);
  });

  it('pages through everything with the default sort and the default limit', async () => {
    const { records, pages } = await followPages(tenant.token, `${t.url}/api/v2/customers`);
    expect(pages.map((p) => p.body.data.length)).toEqual([25, 25, 10]);
    expect(ids(records)).toEqual(expectedIds(all, '-created_at'));
  });

  it('keeps the first page\'s sort on continuation pages; a different sort given with a cursor is ignored', async () => {
    const first = await api.get('/customers?sort=organization&limit=7');
    const next = new URL(nextLink(first)!);
    expect(next.searchParams.has('sort')).toBe(false);
    const plain = await client('', tenant.token).get(next.toString());
    next.searchParams.set('sort', '-number');
    const resorted = await client('', tenant.token).get(next.toString());
    expect(resorted.status).toBe(200);
    expect(ids(resorted.body.data)).toEqual(ids(plain.body.data));
    expect(ids(resorted.body.data)).toEqual(expectedIds(all, 'organization').slice(7, 14));
    next.searchParams.set('sort', 'no_such_field,other');
    const ignored = await client('', tenant.token).get(next.toString());
    expect(ignored.status).toBe(200);
    expect(ids(ignored.body.data)).toEqual(ids(plain.body.data));
  });

  it('allows changing only limit on a continuation page', async () => {
    const expected = expectedIds(all, 'number');
    const first = await api.get('/customers?sort=number&limit=10');
    const next = new URL(nextLink(first)!);
    expect(next.searchParams.get('limit')).toBe('10');
    next.searchParams.set('limit', '20');
    const second = await client('', tenant.token).get(next.toString());
    expect(second.status).toBe(200);
    expect(ids(second.body.data)).toEqual(expected.slice(10, 30));
    next.searchParams.delete('limit');
    const third = await client('', tenant.token).get(next.toString());
    expect(ids(third.body.data)).toEqual(expected.slice(10, 35));
  });

  it('answers 400 sort.invalid for an unknown field or several fields, with the sortable fields in detail', async () => {
    for (const sort of ['name', 'id', 'reference', 'organization,number', '-organization,-number', 'status,', '', '--created_at', 'Created_at']) {
      const body = expectProblem(await api.get(`/customers?sort=${encodeURIComponent(sort)}`), { status: 400, code: 'sort.invalid' });
      for (const field of ['created_at', 'updated_at', 'organization', 'number', 'status']) expect(body.detail).toContain(field);
    }
  });
});

describe('filters', () => {
  it('filters organization by exact value', async () => {
    const res = await api.get(`/customers?organization=${encodeURIComponent('Org 05')}`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((c: any) => c.organization)).toEqual(['Org 05']);
    expect((await api.get('/customers?organization=Org%200')).body.data).toEqual([]);
  });

  it('filters number by exact value', async () => {
    const res = await api.get('/customers?number=7');
    expect(res.body.data.map((c: any) => c.number)).toEqual(['7']);
    expect((await api.get('/customers?number=7000')).body.data).toEqual([]);
  });

  it('filters status by equality and by [in]', async () => {
    const gold = await api.get('/customers?status=Gold&limit=100');
    expect(ids(gold.body.data).sort()).toEqual(ids(all.filter((c) => c.status === 'Gold')).sort());
    const some = await api.get('/customers?status[in]=Gold,Inactive&limit=100');
    expect(ids(some.body.data).sort()).toEqual(ids(all.filter((c) => c.status !== 'Active')).sort());
    const encoded = await api.get('/customers?status%5Bin%5D=Active&limit=100');
    expect(ids(encoded.body.data).sort()).toEqual(ids(all.filter((c) => c.status === 'Active')).sort());
    expect((await api.get('/customers?status=gold')).body.data).toEqual([]);
  });

  it('filters created_at with gte, gt, lte and lt', async () => {
    const inGroups = (groups: number[]) => ids(all.filter((c) => groups.some((g) => c.created_at === groupTime(g)))).sort();
    const get = async (query: string) => ids((await api.get(`/customers?limit=100&${query}`)).body.data).sort();
    expect(await get(`created_at[gte]=${groupTime(2)}&created_at[lt]=${groupTime(4)}`)).toEqual(inGroups([2, 3]));
    expect(await get(`created_at[gt]=${groupTime(2)}&created_at[lte]=${groupTime(4)}`)).toEqual(inGroups([3, 4]));
    expect(await get(`created_at[lt]=${groupTime(1)}`)).toEqual(inGroups([0]));
    expect(await get(`created_at[gte]=${encodeURIComponent('2026-01-05T10:05:00+02:00')}`)).toEqual(inGroups([5]));
    expect(await get('created_at[gte]=2026-01-06')).toEqual([]);
    expect(await get('created_at[lt]=2026-01-06')).toEqual(inGroups([0, 1, 2, 3, 4, 5]));
  });

  it('combines filters with each other, with sort and with pagination', async () => {
    const wanted = all.filter((c) => c.status === 'Gold' && c.created_at >= groupTime(1));
    const { records } = await followPages(
      tenant.token,
      `${t.url}/api/v2/customers?status=Gold&created_at[gte]=${groupTime(1)}&sort=-organization&limit=3`,
    );
    expect(ids(records)).toEqual(expectedIds(wanted, '-organization'));
  });

  it('answers 400 filter.invalid naming an unknown query parameter', async () => {
    for (const name of ['foo', 'page', 'offset', 'reference', 'main_phone', 'id', 'deleted_at', 'account_id', 'Organization', 'search_text']) {
      expectProblem(await api.get(`/customers?${name}=x`), { status: 400, code: 'filter.invalid', detail: name });
    }
  });

  it('answers 400 filter.invalid naming an operator the field does not allow', async () => {
    for (const [param, field] of [
      ['organization[in]=Org%2001,Org%2002', 'organization'],
      ['organization[gte]=A', 'organization'],
      ['number[in]=1,2', 'number'],
      ['number[lt]=5', 'number'],
      ['status[gt]=A', 'status'],
      ['created_at=2026-01-05', 'created_at'],
      ['created_at[eq]=2026-01-05', 'created_at'],
      ['created_at[in]=2026-01-05', 'created_at'],
      ['created_at[between]=2026-01-05', 'created_at'],
      ['organization[like]=Org', 'organization'],
      ['status[IN]=Gold', 'status'],
    ]) {
      expectProblem(await api.get(`/customers?${param}`), { status: 400, code: 'filter.invalid', detail: field });
    }
  });

  it('answers 400 filter.invalid for updated_at, which customers do not filter on', async () => {
    expectProblem(await api.get('/customers?updated_at[gte]=2026-01-01'), { status: 400, code: 'filter.invalid', detail: 'updated_at' });
  });

  it('answers 400 filter.invalid naming a value that does not parse', async () => {
    for (const value of ['yesterday', '2026-02-30', '2026-01-05T25:00:00Z', '2026-01-05T10:00:00', '1736064000', '']) {
      expectProblem(await api.get(`/customers?created_at[gte]=${encodeURIComponent(value)}`), {
        status: 400,
        code: 'filter.invalid',
        detail: 'created_at',
      });
    }
  });

  it('answers 400 filter.invalid for a repeated parameter', async () => {
    for (const query of ['status=Gold&status=Active', 'limit=5&limit=5', 'q=org&q=ref', 'sort=number&sort=status', 'created_at[gte]=2026-01-01&created_at[gte]=2026-01-02']) {
      expectProblem(await api.get(`/customers?${query}`), { status: 400, code: 'filter.invalid', detail: 'more than once' });
    }
  });

  it('answers 400 filter.invalid for malformed parameter names', async () => {
    for (const query of ['status[]=Gold', 'status[in][x]=Gold', 'custom_fields=x', 'custom_fields[]=x', '[in]=x']) {
      expectProblem(await api.get(`/customers?${query}`), { status: 400, code: 'filter.invalid' });
    }
  });
});

describe('q', () => {
  let search: Client;
  let searchToken: string;
  const named: Record<string, string> = {};
  beforeAll(async () => {
    const own = await t.tenant();
    searchToken = own.token;
    search = t.client(own.token);
    await t.app.domain.admin.addLookup('status', { accountId: own.accountId, relatedName: 'Customer', name: 'Platinum' });
    named.east = (await createCustomer(search, { organization: 'Acme Corp East', reference: 'ERP-1001' })).id;
    named.west = (await createCustomer(search, { organization: 'Acme Corp West', reference: 'ERP-2002' })).id;
    named.side = (await createCustomer(search, { organization: 'East Side Ltd', number: 'ZX-4471' })).id;
    const plat = await createCustomer(search, { organization: 'Northwind' });
    named.plat = plat.id;
    await updateCustomer(search, plat, { status: 'Platinum' });
  });

  const found = async (q: string, extra = '') => ids((await search.get(`/customers?q=${encodeURIComponent(q)}${extra}`)).body.data).sort();

  it('searches organization case-insensitively', async () => {
    expect(await found('acme')).toEqual([named.east, named.west].sort());
    expect(await found('ACME CORP')).toEqual([named.east, named.west].sort());
  });

  it('requires every word to match (AND)', async () => {
    expect(await found('acme east')).toEqual([named.east]);
    expect(await found('  East   acme ')).toEqual([named.east]);
    expect(await found('acme nowhere')).toEqual([]);
  });

  it('searches number, status and reference', async () => {
    expect(await found('zx-4471')).toEqual([named.side]);
    expect(await found('platinum')).toEqual([named.plat]);
    expect(await found('erp-2002')).toEqual([named.west]);
    expect(await found('ERP')).toEqual([named.east, named.west].sort());
  });

  it('does not search fields outside the searchable set', async () => {
    const hidden = await createCustomer(search, { organization: 'Plain Name', description: 'quasarword', customer_notes: 'nebulaword', main_phone: '5550199' });
    expect(await found('quasarword')).toEqual([]);
    expect(await found('nebulaword')).toEqual([]);
    expect(await found('5550199')).toEqual([]);
    expect(await found('plain')).toEqual([hidden.id]);
  });

  it('treats % and _ literally', async () => {
    expect(await found('%')).toEqual([]);
    expect(await found('_')).toEqual([]);
    expect(await found('acme%west')).toEqual([]);
  });

  it('applies up to 10 terms, the 10th narrowing like the first, and refuses more with 400 filter.invalid naming q', async () => {
    // Nine terms both Acme customers match, then one only the east one does.
    const nine = 'a c m e o r p acme corp';
    expect(await found(`${nine} east`)).toEqual([named.east]);
    const res = await search.get(`/customers?q=${encodeURIComponent(`${nine} corp east`)}`);
    expectProblem(res, { status: 400, code: 'filter.invalid', detail: /^q: 11 terms; at most 10/ });
  });

  it('narrows filters, and orders by sort rather than relevance, across pages', async () => {
    expect(await found('acme', '&organization=Acme%20Corp%20West')).toEqual([named.west]);
    const { records } = await followPages(searchToken, `${t.url}/api/v2/customers?q=corp&sort=-organization&limit=1`);
    expect(ids(records)).toEqual([named.west, named.east]);
  });
});

describe('tenancy', () => {
  it("never lists another tenant's customers", async () => {
    const { api: otherApi } = await t.newTenant();
    const theirs = await createCustomer(otherApi, { organization: 'Org 05', reference: 'REF-05' });
    const mine = await api.get('/customers?limit=100');
    expect(mine.body.data).toHaveLength(COUNT);
    expect(ids(mine.body.data)).not.toContain(theirs.id);
    expect(ids((await api.get('/customers?organization=Org%2005')).body.data)).not.toContain(theirs.id);
    expect(ids((await api.get('/customers?q=ref-05')).body.data)).not.toContain(theirs.id);
    const listed = await otherApi.get('/customers?limit=100');
    expect(ids(listed.body.data)).toEqual([theirs.id]);
  });
});
