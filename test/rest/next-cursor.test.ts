import { beforeAll, describe, expect, it } from 'vitest';
import { lookupKinds } from '../../src/resources/lookups/lookup.service.ts';
import { highRateLimits, TestClock, useTenant, useTestApp } from '../helpers/app.ts';
import { createContact } from '../helpers/factories/contacts.ts';
import { createCustomer, updateCustomer } from '../helpers/factories/customers.ts';
import type { ApiResponse } from '../helpers/http.ts';
import { cursorOf, nextLink } from '../helpers/list-pages.ts';

// List bodies carry next_cursor beside has_more: the opaque cursor of the next page (the cursor parameter of the
// Link header's URL), null on the last page; lists that are never paginated answer next_cursor null.

const clock = new TestClock();
const t = useTestApp({ clock, rateLimits: highRateLimits });
const { tenant, api } = useTenant(t);
const COUNT = 11;
const created: string[] = [];

beforeAll(async () => {
  for (let i = 0; i < COUNT; i++) {
    // Three customers share each creation instant, so pages cut through ties of the sort.
    clock.pin(new Date(Date.parse('2026-02-01T08:00:00.000Z') + Math.floor(i / 3) * 60_000));
    const customer = await createCustomer(api, { organization: `Paged ${String((i * 7) % COUNT).padStart(2, '0')}` });
    created.push(i % 2 ? customer.id : (await updateCustomer(api, customer, { status: 'Inactive' })).id);
  }
  clock.release();
});

/** GET /customers with these parameters; insists on 200. */
async function list(params: Record<string, string>): Promise<ApiResponse> {
  const res = await api.get(`/customers?${new URLSearchParams(params).toString()}`);
  expect(res.status, res.text).toBe(200);
  return res;
}

/**
 * Pages from the first request by next_cursor alone: each next request repeats the first one's filters and limit
 * (the cursor is bound to them) with cursor=next_cursor instead of the sort (the cursor keeps the first page's order).
 */
async function pageByNextCursor(first: Record<string, string>): Promise<ApiResponse[]> {
  const { sort: _sort, ...rest } = first;
  const pages = [await list(first)];
  for (let cursor = pages[0].body.next_cursor; cursor !== null; cursor = pages.at(-1)!.body.next_cursor) {
    expect(pages.length, 'pages').toBeLessThan(COUNT);
    pages.push(await list({ ...rest, cursor }));
  }
  return pages;
}

const ids = (pages: ApiResponse[]) => pages.flatMap((page) => page.body.data.map((record: { id: string }) => record.id));

describe('next_cursor', () => {
  it('pages a list by next_cursor alone to every record exactly once, in the order of the list on one page', async () => {
    const pages = await pageByNextCursor({ limit: '3' });
    expect(pages.length).toBe(Math.ceil(COUNT / 3));
    expect(ids(pages)).toEqual(ids([await list({ limit: '100' })]));
    expect([...ids(pages)].sort()).toEqual([...created].sort());
  });

  it('pages a filtered and sorted list the same way: the next requests repeat the filter, the cursor keeps the order', async () => {
    const first = { status: 'Inactive', sort: 'organization', limit: '2' };
    const pages = await pageByNextCursor(first);
    const whole = ids([await list({ ...first, limit: '100' })]);
    expect(whole.length).toBe(Math.ceil(COUNT / 2));
    expect(ids(pages)).toEqual(whole);
  });

  it('is the cursor of the Link header\'s URL while has_more is true; the last page has next_cursor null and no Link', async () => {
    const pages = await pageByNextCursor({ limit: '4' });
    for (const page of pages.slice(0, -1)) {
      expect(page.body).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
      expect(page.body.next_cursor).toBe(cursorOf(page));
    }
    const last = pages.at(-1)!;
    expect(last.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(last.headers.get('link')).toBeNull();
    expect(nextLink(last)).toBeNull();
  });

  it('is null on a list that fits on one page and on an empty list', async () => {
    for (const params of [{ limit: '100' }, { organization: 'No such organization' }] as Record<string, string>[]) {
      const res = await list(params);
      expect(Object.keys(res.body)).toEqual(['data', 'has_more', 'next_cursor']);
      expect(res.body).toMatchObject({ has_more: false, next_cursor: null });
      expect(res.headers.get('link')).toBeNull();
    }
  });

  it('is null on the lists that are never paginated: lookups, system options, a contact\'s linkages', async () => {
    // Every list has an entry: the tenant starts with statuses, not with labels or custom fields.
    await t.app.domain.admin.addLookup('label', { accountId: tenant.accountId, relatedName: 'Customer', name: 'Priority' });
    await t.app.domain.admin.addCustomField({ accountId: tenant.accountId, relatedName: 'Customer', name: 'Region', type: 'text' });
    const contact = await createContact(api, { linkable_id: created[0], linkable_type: 'Customer' });
    const paths = [...Object.keys(lookupKinds).map((kind) => `/${kind}`), '/system_options', `/contacts/${contact.id}/linkages`];
    for (const path of paths) {
      const res = await api.get(path);
      expect(res.status, `${path}: ${res.text}`).toBe(200);
      expect(res.body.data.length, path).toBeGreaterThan(0);
      expect(Object.keys(res.body), path).toEqual(['data', 'has_more', 'next_cursor']);
      expect(res.body, path).toMatchObject({ has_more: false, next_cursor: null });
      expect(res.headers.get('link'), path).toBeNull();
    }
  });
});
