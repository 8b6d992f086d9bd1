import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, useTenant, useTestApp } from '../helpers/app.ts';
import { createItem, createTaxRate } from '../helpers/factories/catalog.ts';
import { createEstimate } from '../helpers/factories/estimates.ts';
import { createJob } from '../helpers/factories/jobs.ts';
import { createRecord, deleteRecord, patch, readRecord, updateRecord } from '../helpers/factories/records.ts';
import { createPlace, type Place } from '../helpers/factories/sites.ts';
import type { Client } from '../helpers/http.ts';
import { expectProblem } from '../helpers/problem.ts';
import { StatementLog } from '../helpers/statements.ts';

// Line items, shared by jobs and estimates: create, snapshot replace on update, ETag movement, unit price
// resolution (item price, customer item price, customer price_adjustment), tax rates, and exact arithmetic
// (line-math.ts: subtotal exact, discount/net/tax rounded half up to cents, amount = sum of line totals).

const statements = new StatementLog();
const t = useTestApp({ rateLimits: highRateLimits, onQuery: statements.onQuery });
const { api } = useTenant(t);
let place: Place;
beforeAll(async () => {
  place = await createPlace(api);
});

const parents = [
  { plural: 'jobs', create: (a: Client, f: Record<string, unknown>) => createJob(a, f) },
  { plural: 'estimates', create: (a: Client, f: Record<string, unknown>) => createEstimate(a, f) },
] as const;

/** One line with the given inputs on a fresh estimate; returns the served line and the parent amount. */
async function line(input: Record<string, unknown>, parent: Record<string, unknown> = {}) {
  const est = await createEstimate(api, { site_id: place.site.id, ...parent, lineitems: [{ description: 'line', ...input }] });
  return { line: est.record.lineitems[0], amount: est.record.amount as string };
}

for (const { plural, create } of parents) {
  describe(`${plural}: line items as a snapshot`, () => {
    it('create makes one line per entry, in order, with computed fields', async () => {
      const rec = await create(api, {
        site_id: place.site.id,
        lineitems: [
          { description: 'A', quantity: '1', unit_price: '10' },
          { description: 'B', quantity: 2, unit_price: 2.5 },
        ],
      });
      expect(rec.record.lineitems.map((l: any) => [l.description, l.quantity, l.unit_price, l.line_total])).toEqual([
        ['A', '1.0000', '10.0000', '10.00'],
        ['B', '2.0000', '2.5000', '5.00'],
      ]);
      expect(rec.record.amount).toBe('15.00');
      expect(rec.record.lineitems[0]).toMatchObject({ discount: '0.0000', discount_amount: '0.00', tax_amount: '0.00', tax_applied: false, taxable: true, labor_visible: true });
    });

    it('update: an entry with id updates that line keeping unsent fields, without id creates one, absent ids are destroyed', async () => {
      const rec = await create(api, {
        site_id: place.site.id,
        lineitems: [
          { description: 'keep', quantity: '1', unit_price: '10', discount: '10' },
          { description: 'drop', quantity: '1', unit_price: '99' },
        ],
      });
      const [keep, drop] = rec.record.lineitems;
      const res = await patch(api, plural, rec, { lineitems: [{ id: keep.id, quantity: '3' }, { description: 'new', quantity: '1', unit_price: '1' }] });
      expect(res.status, res.text).toBe(200);
      const lines = res.body.data.lineitems;
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatchObject({ id: keep.id, description: 'keep', quantity: '3.0000', unit_price: '10.0000', discount: '10.0000', discount_amount: '3.00', line_total: '27.00' });
      expect(lines[1].id).not.toBe(drop.id);
      expect(lines[1]).toMatchObject({ description: 'new', line_total: '1.00' });
      expect(res.body.data.amount).toBe('28.00');
      expect((await readRecord(api, plural, rec.id)).record.lineitems).toEqual(lines);
    });

    it('update: omitting lineitems leaves the lines untouched, [] removes them all', async () => {
      const rec = await create(api, { site_id: place.site.id, lineitems: [{ description: 'x', quantity: '1', unit_price: '5' }] });
      const kept = await patch(api, plural, rec, { title: 'no lines sent' });
      expect(kept.status, kept.text).toBe(200);
      expect(kept.body.data.lineitems).toEqual(rec.record.lineitems);
      expect(kept.body.data.amount).toBe('5.00');
      const cleared = await patch(api, plural, { id: rec.id, etag: kept.headers.get('etag')! }, { lineitems: [] });
      expect(cleared.status, cleared.text).toBe(200);
      expect(cleared.body.data.lineitems).toEqual([]);
      expect(cleared.body.data.amount).toBe('0.00');
      expect((await readRecord(api, plural, rec.id)).record.lineitems).toEqual([]);
    });

    it('supplying lineitems changes the ETag even when nothing else changes', async () => {
      const rec = await create(api, { site_id: place.site.id, lineitems: [{ description: 'x', quantity: '1', unit_price: '5' }] });
      const same = rec.record.lineitems.map((l: any) => ({ id: l.id }));
      const res = await patch(api, plural, rec, { lineitems: same });
      expect(res.status, res.text).toBe(200);
      expect(res.headers.get('etag')).not.toBe(rec.etag);
      expect(res.body.data.lineitems).toEqual(rec.record.lineitems);
      expectProblem(await patch(api, plural, rec, { title: 'stale' }), { status: 412, code: 'precondition.failed' });
    });

    it("refuses an id of another parent's line (or an unknown id) with 422, changing nothing", async () => {
      const a = await create(api, { site_id: place.site.id, lineitems: [{ description: 'a', quantity: '1', unit_price: '1' }] });
      const b = await create(api, { site_id: place.site.id, lineitems: [{ description: 'b', quantity: '1', unit_price: '2' }] });
      const est = await createEstimate(api, { site_id: place.site.id, lineitems: [{ description: 'e', quantity: '1', unit_price: '3' }] });
      for (const foreign of [b.record.lineitems[0].id, est.record.lineitems[0].id, randomUUID()]) {
        expectProblem(await patch(api, plural, a, { lineitems: [{ id: foreign, quantity: '5' }] }), {
          status: 422,
          code: 'validation.failed',
          errors: { 'lineitems.0.id': true },
        });
      }
      expect((await readRecord(api, plural, b.id)).record.lineitems).toEqual(b.record.lineitems);
      expect((await readRecord(api, plural, a.id)).record).toEqual(a.record);
    });

    it('refuses the same line id twice in one update with 422 naming the second entry', async () => {
      const a = await create(api, { site_id: place.site.id, lineitems: [{ description: 'a', quantity: '1', unit_price: '1' }] });
      const id = a.record.lineitems[0].id;
      expectProblem(await patch(api, plural, a, { lineitems: [{ id, quantity: '2' }, { id, quantity: '3' }] }), {
        status: 422,
        code: 'validation.failed',
        errors: { 'lineitems.1.id': true },
      });
      expect((await readRecord(api, plural, a.id)).record).toEqual(a.record);
    });

    it('rejects a line without item_id and without unit_price, a missing quantity, and an inactive tax rate on a new line', async () => {
      expectProblem(await api.post(`/${plural}`, { [plural.slice(0, -1)]: { site_id: place.site.id, lineitems: [{ description: 'x', quantity: '1' }] } }), {
        status: 422,
        code: 'validation.failed',
        errors: { 'lineitems.0.unit_price': true },
      });
      expectProblem(await api.post(`/${plural}`, { [plural.slice(0, -1)]: { site_id: place.site.id, lineitems: [{ description: 'x', unit_price: '1' }] } }), {
        status: 422,
        code: 'validation.failed',
        errors: { 'lineitems.0.quantity': true },
      });
      const inactive = await createTaxRate(api, { active: false });
      expectProblem(
        await api.post(`/${plural}`, { [plural.slice(0, -1)]: { site_id: place.site.id, lineitems: [{ description: 'x', quantity: '1', unit_price: '1', tax_rate_id: inactive.id }] } }),
        { status: 422, code: 'validation.failed', errors: { 'lineitems.0.tax_rate_id': true } },
      );
      const rec = await create(api, { site_id: place.site.id });
      expectProblem(await patch(api, plural, rec, { lineitems: [{ description: 'x', quantity: '1', unit_price: '1', tax_rate_id: inactive.id }] }), {
        status: 422,
        code: 'validation.failed',
        errors: { 'lineitems.0.tax_rate_id': true },
      });
    });

    it('keeps the tax of an existing line whose tax rate was deactivated since', async () => {
      const tax = await createTaxRate(api, { rate: '10' });
      const rec = await create(api, { site_id: place.site.id, lineitems: [{ description: 'x', quantity: '1', unit_price: '100', tax_rate_id: tax.id }] });
      await updateRecord(api, 'tax_rates', 'tax_rate', tax, { active: false });
      const res = await patch(api, plural, rec, { lineitems: [{ id: rec.record.lineitems[0].id, quantity: '2' }] });
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.lineitems[0]).toMatchObject({ tax_amount: '20.00', line_total: '220.00' });
    });
  });
}

describe('unit price resolution', () => {
  it("takes the item's price, its name as description and its taxable flag when unit_price is omitted", async () => {
    const item = await createItem(api, { name: 'Filter', unit_price: '19.99', taxable: false });
    const tax = await createTaxRate(api, { rate: '10' });
    const { line: l } = await line({ item_id: item.id, quantity: '2', tax_rate_id: tax.id, description: undefined });
    expect(l).toMatchObject({ item_id: item.id, unit_price: '19.9900', description: 'Filter', taxable: false, tax_applied: false, line_total: '39.98' });
  });

  it("prefers the customer's own item price, else adjusts the item's price by the customer's price_adjustment", async () => {
    const item = await createItem(api, { unit_price: '40' });
    const special = await createPlace(api);
    await createRecord(api, 'customer_item_prices', 'customer_item_price', { customer_id: special.customer.id, item_id: item.id, unit_price: '33.3333' });
    const discounted = await createPlace(api, { price_adjustment: '-12.5' });
    const marked = await createPlace(api, { price_adjustment: '7.77' });
    const priceOf = async (p: Place) => (await line({ item_id: item.id, quantity: '1' }, { site_id: p.site.id })).line.unit_price;
    expect(await priceOf(place)).toBe('40.0000');
    expect(await priceOf(special)).toBe('33.3333');
    expect(await priceOf(discounted)).toBe('35.0000');
    expect(await priceOf(marked)).toBe('43.1080');
    // A supplied unit_price wins over every price book.
    expect((await line({ item_id: item.id, quantity: '1', unit_price: '1.23' }, { site_id: special.site.id })).line.unit_price).toBe('1.2300');
    // Jobs resolve the same way (the customer comes from the site).
    const job = await createJob(api, { site_id: special.site.id, lineitems: [{ item_id: item.id, quantity: '3' }] });
    expect(job.record.lineitems[0]).toMatchObject({ unit_price: '33.3333', line_total: '100.00' });
  });

  it('rejects an unknown item with 422 naming lineitems.N.item_id', async () => {
    expectProblem(await api.post('/estimates', { estimate: { site_id: place.site.id, lineitems: [{ item_id: randomUUID(), quantity: '1' }] } }), {
      status: 422,
      code: 'validation.failed',
      errors: { 'lineitems.0.item_id': true },
    });
  });
});

describe('arithmetic (exact decimals, half up to cents)', () => {
  it('0.1 + 0.2: two lines of 0.1 and 0.2 make an amount of 0.30', async () => {
    const est = await createEstimate(api, {
      site_id: place.site.id,
      lineitems: [
        { description: 'a', quantity: '1', unit_price: 0.1 },
        { description: 'b', quantity: '1', unit_price: '0.2' },
      ],
    });
    expect(est.record.amount).toBe('0.30');
  });

  it('a quantity of 1/3 ("0.3333") times 3 rounds to 1.00, and with 10% tax gives 1.10', async () => {
    const tax = await createTaxRate(api, { rate: '10' });
    const { line: l, amount } = await line({ quantity: '0.3333', unit_price: '3', tax_rate_id: tax.id });
    expect(l).toMatchObject({ quantity: '0.3333', discount_amount: '0.00', tax_amount: '0.10', line_total: '1.10', tax_applied: true });
    expect(amount).toBe('1.10');
    expectProblem(await api.post('/estimates', { estimate: { site_id: place.site.id, lineitems: [{ description: 'x', quantity: '0.33333', unit_price: '3' }] } }), {
      status: 422,
      code: 'validation.failed',
      errors: { 'lineitems.0.quantity': true },
    });
  });

  it('a 100% discount zeroes the line and its tax', async () => {
    const tax = await createTaxRate(api, { rate: '8.25' });
    const { line: l, amount } = await line({ quantity: '2', unit_price: '49.99', discount: '100', tax_rate_id: tax.id });
    expect(l).toMatchObject({ discount_amount: '99.98', tax_amount: '0.00', line_total: '0.00' });
    expect(amount).toBe('0.00');
    expectProblem(await api.post('/estimates', { estimate: { site_id: place.site.id, lineitems: [{ description: 'x', quantity: '1', unit_price: '1', discount: '100.01' }] } }), {
      status: 422,
      code: 'validation.failed',
      errors: { 'lineitems.0.discount': true },
    });
  });

  it('a zero tax rate applies no tax (tax_applied false), like a line without tax rate', async () => {
    const zero = await createTaxRate(api, { rate: '0' });
    expect((await line({ quantity: '1', unit_price: '10', tax_rate_id: zero.id })).line).toMatchObject({ tax_amount: '0.00', tax_applied: false, line_total: '10.00' });
    expect((await line({ quantity: '1', unit_price: '10' })).line).toMatchObject({ tax_amount: '0.00', tax_applied: false });
  });

  it('taxable false applies no tax even with a tax rate', async () => {
    const tax = await createTaxRate(api, { rate: '20' });
    expect((await line({ quantity: '1', unit_price: '10', tax_rate_id: tax.id, taxable: false })).line).toMatchObject({ tax_amount: '0.00', tax_applied: false, line_total: '10.00' });
  });

  it('large quantities are exact: 9999999 × 9999.9999', async () => {
    const { line: l, amount } = await line({ quantity: '9999999', unit_price: '9999.9999' });
    expect(l.line_total).toBe('99999989000.00');
    expect(amount).toBe('99999989000.00');
    const tax = await createTaxRate(api, { rate: '8.25' });
    const taxed = await line({ quantity: '9999999', unit_price: '9999.9999', tax_rate_id: tax.id });
    // 99999989000.0001 → net 99999989000.00; tax 8249999092.50 exactly
    expect(taxed.line).toMatchObject({ tax_amount: '8249999092.50', line_total: '108249988092.50' });
  });

  it('a line total or parent amount beyond 999999999999.99 answers 422 naming the line (not 500)', async () => {
    for (const plural of ['jobs', 'estimates']) {
      const key = plural.slice(0, -1);
      expectProblem(await api.post(`/${plural}`, { [key]: { site_id: place.site.id, lineitems: [{ description: 'x', quantity: '9999999999', unit_price: '9999999999' }] } }), {
        status: 422,
        code: 'validation.failed',
        errors: { 'lineitems.0': true },
      });
      // Fully discounted, the line total would be 0 but the discount amount would not fit either.
      expectProblem(
        await api.post(`/${plural}`, { [key]: { site_id: place.site.id, lineitems: [{ description: 'x', quantity: '9999999999', unit_price: '9999999999', discount: '100' }] } }),
        { status: 422, code: 'validation.failed', errors: { 'lineitems.0': true } },
      );
      // Each line fits, their sum does not.
      const big = { description: 'big', quantity: '9999999', unit_price: '99999.9999' };
      expectProblem(await api.post(`/${plural}`, { [key]: { site_id: place.site.id, lineitems: [big, big] } }), { status: 422, code: 'validation.failed', errors: { lineitems: true } });
    }
    const ok = await createEstimate(api, { site_id: place.site.id, lineitems: [{ description: 'max', quantity: '99999999.9999', unit_price: '9999.9999' }] });
    expect(ok.record.amount).toBe('999999989999.00');
  });

  it('rounds tax half up to cents, discount first then tax on the net', async () => {
    const five = await createTaxRate(api, { rate: '5' });
    // net 0.50 × 5% = 0.025 → 0.03 (half up; half-even would give 0.02)
    expect((await line({ quantity: '1', unit_price: '0.5', tax_rate_id: five.id })).line).toMatchObject({ tax_amount: '0.03', line_total: '0.53' });
    // net 20.10 × 5% = 1.005 → 1.01
    expect((await line({ quantity: '1', unit_price: '20.10', tax_rate_id: five.id })).line).toMatchObject({ tax_amount: '1.01', line_total: '21.11' });
    // net 0.10 × 5% = 0.005 → 0.01
    expect((await line({ quantity: '1', unit_price: '0.1', tax_rate_id: five.id })).line).toMatchObject({ tax_amount: '0.01', line_total: '0.11' });
    // 3 × 3.3333 = 9.9999 → subtotal 10.00; discount 15% of 9.9999 = 1.499985 → 1.50; net 8.50; tax 8.25% = 0.70125 → 0.70
    const t825 = await createTaxRate(api, { rate: '8.25' });
    expect((await line({ quantity: '3', unit_price: '3.3333', discount: '15', tax_rate_id: t825.id })).line).toMatchObject({
      discount_amount: '1.50',
      tax_amount: '0.70',
      line_total: '9.20',
    });
  });

  it("uses the estimate's tax_rate_id as the default tax rate of new lines (an explicit line tax_rate_id wins)", async () => {
    const def = await createTaxRate(api, { rate: '10' });
    const other = await createTaxRate(api, { rate: '20' });
    const est = await createEstimate(api, {
      site_id: place.site.id,
      tax_rate_id: def.id,
      lineitems: [
        { description: 'default', quantity: '1', unit_price: '100' },
        { description: 'explicit', quantity: '1', unit_price: '100', tax_rate_id: other.id },
        { description: 'none', quantity: '1', unit_price: '100', tax_rate_id: null },
      ],
    });
    expect(est.record.lineitems.map((l: any) => [l.tax_rate_id, l.tax_amount])).toEqual([
      [def.id, '10.00'],
      [other.id, '20.00'],
      [null, '0.00'],
    ]);
    expect(est.record.amount).toBe('330.00');
    // New lines added later also take the estimate's (possibly changed) tax rate.
    const res = await patch(api, 'estimates', est, { tax_rate_id: other.id, lineitems: [...est.record.lineitems.map((l: any) => ({ id: l.id })), { description: 'later', quantity: '1', unit_price: '100' }] });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.lineitems.map((l: any) => l.tax_amount)).toEqual(['10.00', '20.00', '0.00', '20.00']);
  });
});

describe('a line keeps what it was computed with', () => {
  it("recomputes an existing line with the tax percent stored on it: a later change of the tax rate's percent does not reprice it", async () => {
    const tax = await createTaxRate(api, { rate: '10' });
    const est = await createEstimate(api, { site_id: place.site.id, tax_rate_id: tax.id, lineitems: [{ description: 'x', quantity: '1', unit_price: '100' }] });
    expect(est.record.lineitems[0]).toMatchObject({ tax_rate_id: tax.id, applied_tax_rate: '10.0000', tax_amount: '10.00', line_total: '110.00' });
    await updateRecord(api, 'tax_rates', 'tax_rate', await readRecord(api, 'tax_rates', tax.id), { rate: '20' });
    // Another field of the estimate, then the line itself: the amount stays.
    const titled = await patch(api, 'estimates', est, { title: 'retitled' });
    expect(titled.status, titled.text).toBe(200);
    expect(titled.body.data.amount).toBe('110.00');
    const edited = await patch(api, 'estimates', { id: est.id, etag: titled.headers.get('etag')! }, { lineitems: [{ id: est.record.lineitems[0].id, description: 'renamed' }] });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body.data.lineitems[0]).toMatchObject({ description: 'renamed', applied_tax_rate: '10.0000', tax_amount: '10.00', line_total: '110.00' });
    expect(edited.body.data.amount).toBe('110.00');
    // A line added now, or a line switched to the rate, takes today's percent.
    const other = await createTaxRate(api, { rate: '5' });
    const added = await patch(api, 'estimates', { id: est.id, etag: edited.headers.get('etag')! }, {
      lineitems: [{ id: est.record.lineitems[0].id, tax_rate_id: other.id }, { description: 'new', quantity: '1', unit_price: '100' }],
    });
    expect(added.status, added.text).toBe(200);
    expect(added.body.data.lineitems.map((l: any) => [l.applied_tax_rate, l.line_total])).toEqual([
      ['5.0000', '105.00'],
      ['20.0000', '120.00'],
    ]);
    const switchedBack = await patch(api, 'estimates', { id: est.id, etag: added.headers.get('etag')! }, {
      lineitems: [{ id: est.record.lineitems[0].id, tax_rate_id: tax.id }, { id: added.body.data.lineitems[1].id, tax_rate_id: null }],
    });
    expect(switchedBack.status, switchedBack.text).toBe(200);
    expect(switchedBack.body.data.lineitems.map((l: any) => [l.applied_tax_rate, l.tax_applied, l.line_total])).toEqual([
      ['20.0000', true, '120.00'],
      [null, false, '100.00'],
    ]);
  });

  for (const { plural, create } of parents) {
    it(`${plural}: a line whose item or tax rate was deleted, or whose tax rate was deactivated, stays editable; putting them on a line is refused`, async () => {
      const item = await createItem(api, { unit_price: '50' });
      const deletedTax = await createTaxRate(api, { rate: '10' });
      const inactiveTax = await createTaxRate(api, { rate: '20' });
      const rec = await create(api, {
        site_id: place.site.id,
        lineitems: [
          { item_id: item.id, quantity: '1', tax_rate_id: deletedTax.id },
          { description: 'y', quantity: '1', unit_price: '100', tax_rate_id: inactiveTax.id },
        ],
      });
      expect(rec.record.amount).toBe('175.00');
      await deleteRecord(api, 'items', item.id);
      await deleteRecord(api, 'tax_rates', deletedTax.id);
      await updateRecord(api, 'tax_rates', 'tax_rate', await readRecord(api, 'tax_rates', inactiveTax.id), { active: false });
      const [a, b] = rec.record.lineitems;
      const res = await patch(api, plural, rec, { lineitems: [{ id: a.id, quantity: '2' }, { id: b.id, description: 'still here' }] });
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.lineitems.map((l: any) => [l.item_id, l.tax_rate_id, l.unit_price, l.applied_tax_rate, l.line_total])).toEqual([
        [item.id, deletedTax.id, '50.0000', '10.0000', '110.00'],
        [null, inactiveTax.id, '100.0000', '20.0000', '120.00'],
      ]);
      const current = { id: rec.id, etag: res.headers.get('etag')! };
      // Putting the deleted item, or a deleted or inactive tax rate, on a new line or switching a line to it: 422.
      expectProblem(await patch(api, plural, current, { lineitems: [{ id: a.id }, { id: b.id }, { item_id: item.id, quantity: '1' }] }), {
        status: 422,
        code: 'validation.failed',
        errors: { 'lineitems.2.item_id': true },
        onlyErrors: true,
      });
      expectProblem(await patch(api, plural, current, { lineitems: [{ id: a.id, tax_rate_id: inactiveTax.id }, { id: b.id, tax_rate_id: deletedTax.id }] }), {
        status: 422,
        code: 'validation.failed',
        errors: { 'lineitems.0.tax_rate_id': true, 'lineitems.1.tax_rate_id': true },
        onlyErrors: true,
      });
      expect((await readRecord(api, plural, rec.id)).record.lineitems).toEqual(res.body.data.lineitems);
    });
  }

  it("changing a line's item_id without unit_price takes the new item's price for the customer, keeping description and taxable; a unit_price sent wins", async () => {
    const first = await createItem(api, { name: 'First', unit_price: '10', taxable: false });
    const second = await createItem(api, { name: 'Second', unit_price: '40', taxable: true });
    const discounted = await createPlace(api, { price_adjustment: '-25' });
    const est = await createEstimate(api, { site_id: discounted.site.id, lineitems: [{ item_id: first.id, quantity: '2' }] });
    expect(est.record.lineitems[0]).toMatchObject({ description: 'First', unit_price: '7.5000', taxable: false, line_total: '15.00' });
    const lineId = est.record.lineitems[0].id;
    const switched = await patch(api, 'estimates', est, { lineitems: [{ id: lineId, item_id: second.id }] });
    expect(switched.status, switched.text).toBe(200);
    expect(switched.body.data.lineitems[0]).toMatchObject({ item_id: second.id, unit_price: '30.0000', description: 'First', taxable: false, line_total: '60.00' });
    const given = await patch(api, 'estimates', { id: est.id, etag: switched.headers.get('etag')! }, { lineitems: [{ id: lineId, item_id: first.id, unit_price: '1' }] });
    expect(given.status, given.text).toBe(200);
    expect(given.body.data.lineitems[0]).toMatchObject({ item_id: first.id, unit_price: '1.0000', line_total: '2.00' });
    // Removing the item keeps the price; re-sending the same item does not re-resolve it.
    const same = await patch(api, 'estimates', { id: est.id, etag: given.headers.get('etag')! }, { lineitems: [{ id: lineId, item_id: first.id }] });
    expect(same.body.data.lineitems[0]).toMatchObject({ unit_price: '1.0000' });
    const none = await patch(api, 'estimates', { id: est.id, etag: same.headers.get('etag')! }, { lineitems: [{ id: lineId, item_id: null }] });
    expect(none.body.data.lineitems[0]).toMatchObject({ item_id: null, unit_price: '1.0000' });
  });
});

describe('lookups per write', () => {
  it('reads items, tax rates and customer prices with the same number of statements for 2 lines as for 12', async () => {
    const customer = await createPlace(api, { price_adjustment: '5' });
    const lookups = async (n: number) => {
      const lines: Record<string, unknown>[] = [];
      for (let i = 0; i < n; i += 1) {
        const item = await createItem(api, { unit_price: String(10 + i) });
        const tax = await createTaxRate(api, { rate: String(i) });
        if (i % 2 === 0) await createRecord(api, 'customer_item_prices', 'customer_item_price', { customer_id: customer.customer.id, item_id: item.id, unit_price: '7' });
        lines.push({ item_id: item.id, quantity: '1', tax_rate_id: tax.id });
      }
      const { res, sql } = await statements.during(() => api.post('/estimates', { estimate: { site_id: customer.site.id, lineitems: lines } }));
      expect(res.status, res.text).toBe(201);
      return sql.filter((sql) => /FROM "public"\."(items|tax_rates|customer_item_prices|customers)"/.test(sql)).length;
    };
    const few = await lookups(2);
    expect(few).toBeGreaterThan(0);
    expect(await lookups(12)).toBe(few);
  });
});
