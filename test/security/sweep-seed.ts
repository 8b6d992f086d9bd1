import { parentsOf } from '../../src/kernel/nesting.ts';
import { expect } from 'vitest';
import type { FieldSpec } from '../../src/kernel/fields.ts';
import { bodyKeyOf, restPath, type ResourceDefinition } from '../../src/kernel/resource.ts';
import type { Tenant, TestApp } from '../helpers/app.ts';
import { link } from '../helpers/factories/contacts.ts';
import { createRecord, freshKey, readRecord, updateRecord, type Created } from '../helpers/factories/records.ts';
import type { Client } from '../helpers/http.ts';

// Seeds one tenant of the sweep through the API (custom field definitions and a second user through the admin
// service, as the `fieldline` command does: there is no API for them). Every text the tenant writes carries its
// marker, so that any answer to the other tenant that contains it is a leak. Records are made in an order that
// keeps the first record of each kind coherent with the first of the others (the first site belongs to the
// first customer, the first system to the first site, the first linkage of the first contact is to the first
// customer ...): the sweep builds valid requests from the first records of its own tenant. A resource of the app
// that the records made by hand do not cover gets two records of its required fields (plainFields). Records are
// kept by REST collection path (restPath: "webhooks/endpoints").

/** The topic of the seeded webhook endpoints: one nothing in the sweep emits, so no delivery writes in the background. */
export const QUIET_TOPIC = 'webhook_endpoint.paused';

export interface Seeded {
  tenant: Tenant;
  api: Client;
  marker: string;
}

let n = 0;
const u = (marker: string, what: string) => {
  n += 1;
  return `${marker} ${what} ${n}`;
};

/** A number the field accepts: 1, or the nearest end of its range. */
function inRange(spec: FieldSpec): number {
  const [min, max] = spec.range ?? [1, 1];
  return Math.min(Math.max(1, min), max);
}

/**
 * A create body of a resource's required fields (and its custom field), each a plain value of its kind that
 * carries the marker; a required reference is the first record of the referenced model (`reference`). Throws for
 * a required field no plain value fits (a polymorphic id): such a resource is seeded by hand in seedTenant.
 */
export function plainFields(def: ResourceDefinition, marker: string, reference: (model: string) => string | number | undefined, custom: Record<string, unknown>) {
  const value = (name: string, spec: FieldSpec): unknown => {
    if (spec.enum) return spec.enum[0];
    if (spec.references) return reference(spec.references.model);
    switch (spec.kind) {
      case 'string':
      case 'text':
        return u(marker, name).slice(0, spec.max ?? 255);
      case 'email':
        return `${marker.toLowerCase()}-${name}-${(n += 1)}@example.test`;
      case 'url':
        return `https://example.test/${marker}`;
      case 'integer':
      case 'int64':
      case 'number':
        return inRange(spec);
      case 'decimal':
        return String(inRange(spec));
      case 'boolean':
        return true;
      case 'date':
        return '2026-06-01';
      case 'datetime':
        return '2026-06-01T09:00:00.000Z';
      case 'uuid':
      case 'string[]':
        // A list's entries follow rules of their own (webhook topics name the catalog): seeded by hand.
        return undefined;
    }
  };
  const body: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(def.fields)) {
    if (spec.create !== 'required') continue;
    body[name] = value(name, spec);
    if (body[name] === undefined) throw new Error(`seedTenant: no plain value for ${restPath(def)}.${name}; seed ${restPath(def)} by hand`);
  }
  return { ...body, ...(def.conventions.customFields ? custom : {}) };
}

/**
 * Two or more records of every resource, linked the way real data is, plus converted leads and estimates.
 * `webhookUrl`: a receiver that echoes the verification challenge (startReceiver({ kind: 'echo' })), where the
 * webhook endpoints point; the app must run with WEBHOOK_ALLOW_PRIVATE_NETWORKS to reach it.
 */
export async function seedTenant(t: TestApp, marker: string, relatedNames: string[], options: { webhookUrl?: string } = {}): Promise<Seeded> {
  const { tenant, api } = await t.newTenant({ name: `${marker} account` });
  const made = new Map<string, Created[]>();
  const created = async (plural: string, key: string, fields: Record<string, unknown>): Promise<Created> => {
    const record = await createRecord(api, plural, key, fields);
    made.set(plural, [...(made.get(plural) ?? []), record]);
    return record;
  };
  const patched = async (plural: string, id: string, key: string, fields: Record<string, unknown>) =>
    updateRecord(api, plural, key, await readRecord(api, plural, id), fields);
  const admin = t.app.domain.admin;
  const fields: Record<string, string> = {};
  for (const relatedName of relatedNames) {
    fields[relatedName] = (await admin.addCustomField({ accountId: tenant.accountId, relatedName, name: `${marker} ${relatedName} note`, type: 'text' })).id;
    await admin.addLookup('label', { accountId: tenant.accountId, relatedName, name: `${marker} ${relatedName} label` });
  }
  const tech = await admin.createUser({ accountId: tenant.accountId, name: `${marker} Technician`, email: `${marker.toLowerCase()}-tech@example.test`, role: 'technician' });
  const cf = (relatedName: string) => (fields[relatedName] ? { custom_fields: { [fields[relatedName]]: u(marker, 'custom value') } } : {});

  const c0 = await created('customers', 'customer', { organization: u(marker, 'Customer'), reference: u(marker, 'ref'), assignee_id: tenant.userId, ...cf('Customer') });
  const c1 = await created('customers', 'customer', { organization: u(marker, 'Customer') });
  const l0 = await created('leads', 'lead', { organization: u(marker, 'Lead'), first_name: marker, assignee_id: tenant.userId, ...cf('Lead') });
  const l1 = await created('leads', 'lead', { organization: u(marker, 'Lead') });
  const site = (parent: any, type: string, extra: Record<string, unknown> = {}) =>
    created('sites', 'site', { site_name: u(marker, 'Site'), street: u(marker, 'Street'), city: 'Springfield', state: 'IL', siteable_id: parent.id, siteable_type: type, ...extra });
  const s0 = await site(c0, 'Customer', cf('Site'));
  await site(c0, 'Customer');
  await site(l0, 'Lead');
  await site(l1, 'Lead');
  const ct0 = await created('contacts', 'contact', {
    first_name: marker,
    last_name: u(marker, 'Contact'),
    email: `${marker.toLowerCase()}@example.test`,
    phone_numbers: [{ number: '555-0100', kind: 'mobile' }, { number: '555-0101', kind: 'office' }],
    linkable_id: c0.id,
    linkable_type: 'Customer',
    ...cf('Contact'),
  });
  const ct1 = await created('contacts', 'contact', { first_name: marker, last_name: u(marker, 'Contact'), phone_numbers: [{ number: '555-0102' }], linkable_id: c1.id, linkable_type: 'Customer' });
  for (const [contact, id, type] of [[ct0, s0.id, 'Site'], [ct0, l0.id, 'Lead'], [ct1, l1.id, 'Lead']] as const) {
    await link(api, contact.id, { type, id }, { relationship_type: 'billing' });
  }
  const i0 = await created('items', 'item', { name: u(marker, 'Item'), item_type: 'material', unit_price: '12.5', ...cf('Item') });
  const i1 = await created('items', 'item', { name: u(marker, 'Item'), item_type: 'labor', unit_price: '80' });
  const t0 = await created('tax_rates', 'tax_rate', { name: u(marker, 'Tax'), rate: '8.25' });
  await created('tax_rates', 'tax_rate', { name: u(marker, 'Tax'), rate: '5' });
  await created('customer_item_prices', 'customer_item_price', { customer_id: c0.id, item_id: i0.id, unit_price: '11' });
  await created('customer_item_prices', 'customer_item_price', { customer_id: c1.id, item_id: i1.id, unit_price: '75' });
  const sy0 = await created('systems', 'system', { site_id: s0.id, system_type: 'HVAC', name: u(marker, 'System'), ...cf('System') });
  await created('systems', 'system', { site_id: s0.id, system_type: 'Plumbing', name: u(marker, 'System') });
  // Assets at the first site (the first in a system, named by the first job: Asset.jobs, Job.assets).
  const a0 = await created('assets', 'asset', {
    site_id: s0.id,
    system_id: sy0.id,
    name: u(marker, 'Asset'),
    make: u(marker, 'Make'),
    serial_number: u(marker, 'SN'),
    location_note: u(marker, 'Roof'),
    install_date: '2024-01-01',
    warranty_expires_on: '2029-01-01',
    ...cf('Asset'),
  });
  const a1 = await created('assets', 'asset', { site_id: s0.id, name: u(marker, 'Asset') });
  // Projects of the first customer (the first with a team and the first job and estimate: Project.jobs, team).
  const p0 = await created('projects', 'project', {
    name: u(marker, 'Project'),
    customer_id: c0.id,
    site_id: s0.id,
    description: u(marker, 'Scope'),
    start_date: '2026-01-01',
    end_date: '2026-12-31',
    budget_amount: '1000',
    user_ids: [tenant.userId, tech.id],
    ...cf('Project'),
  });
  await created('projects', 'project', { name: u(marker, 'Project'), customer_id: c0.id });
  const line = () => ({ item_id: i0.id, quantity: '2', tax_rate_id: t0.id, description: u(marker, 'line') });
  const j0 = await created('jobs', 'job', {
    customer_id: c0.id,
    site_id: s0.id,
    contact_id: ct0.id,
    system_id: sy0.id,
    title: u(marker, 'Job'),
    scheduled_start: '2026-06-01T09:00:00.000Z',
    scheduled_end: '2026-06-01T11:00:00.000Z',
    lineitems: [line(), { description: u(marker, 'labor'), quantity: 1, unit_price: '50' }],
    assignments: [{ user_id: tenant.userId }, { user_id: tech.id }],
    asset_ids: [a0.id, a1.id],
    project_id: p0.id,
    ...cf('Job'),
  });
  await created('jobs', 'job', { site_id: s0.id, title: u(marker, 'Job'), scheduled_start: '2026-06-02T09:00:00.000Z', lineitems: [line()], assignments: [{ user_id: tech.id }] });
  const e0 = await created('estimates', 'estimate', {
    customer_id: c0.id,
    site_id: s0.id,
    contact_id: ct0.id,
    system_id: sy0.id,
    tax_rate_id: t0.id,
    title: u(marker, 'Estimate'),
    lineitems: [line(), { description: u(marker, 'labor'), quantity: 1, unit_price: '50', labor_visible: false }],
    project_id: p0.id,
    ...cf('Estimate'),
  });
  const e1 = await created('estimates', 'estimate', { site_id: s0.id, title: u(marker, 'Estimate'), lineitems: [line()] });
  // The first estimate is Accepted and not converted (a conversion by the other tenant would show); the second
  // is converted, so that estimates and jobs carry converted_job_id / estimate_id.
  await patched('estimates', e0.id, 'estimate', { status: 'Accepted' });
  await patched('estimates', e1.id, 'estimate', { status: 'Accepted' });
  const converted = await api.post(`/estimates/${e1.id}/convert`);
  expect(converted.status, converted.text).toBe(201);
  // Tickets: the first open, with every reference; the second converted (tickets and jobs carry
  // converted_job_id / ticket_id, Ticket.job and Job.ticket).
  await created('tickets', 'ticket', {
    subject: u(marker, 'Ticket'),
    description: u(marker, 'request'),
    customer_id: c0.id,
    site_id: s0.id,
    contact_id: ct0.id,
    assignee_id: tenant.userId,
    priority: 'high',
    channel: 'phone',
    ...cf('Ticket'),
  });
  const tk1 = await created('tickets', 'ticket', { subject: u(marker, 'Ticket'), customer_id: c0.id, site_id: s0.id });
  const ticketJob = await api.post(`/tickets/${tk1.id}/convert`, { job: { title: u(marker, 'Job') } });
  expect(ticketJob.status, ticketJob.text).toBe(201);
  // The second lead is converted (converted_customer_id, moved site and linkage); the first stays a lead.
  // Deals: the first with the first customer (the first estimate quotes for it), one with each lead (the second
  // lead's moves to its customer when the lead is converted below).
  const d0 = await created('deals', 'deal', {
    name: u(marker, 'Deal'),
    customer_id: c0.id,
    value_amount: '1200',
    owner_id: tenant.userId,
    source: u(marker, 'source'),
    description: u(marker, 'Deal note'),
    expected_close_date: '2026-07-01',
    probability_percent: 40,
    ...cf('Deal'),
  });
  await created('deals', 'deal', { name: u(marker, 'Deal'), lead_id: l1.id });
  await created('deals', 'deal', { name: u(marker, 'Deal'), lead_id: l0.id });
  await patched('estimates', e0.id, 'estimate', { deal_id: d0.id });
  const lead = await api.post(`/leads/${l1.id}/convert`, { customer: { organization: u(marker, 'Converted customer') } });
  expect(lead.status, lead.text).toBe(201);
  const inv0 = await created('invoices', 'invoice', {
    customer_id: c0.id,
    site_id: s0.id,
    contact_id: ct0.id,
    tax_rate_id: t0.id,
    reference: u(marker, 'Invoice'),
    lineitems: [line(), { description: u(marker, 'labor'), quantity: 1, unit_price: '50' }],
    ...cf('Invoice'),
  });
  const inv1 = await created('invoices', 'invoice', { customer_id: c1.id, reference: u(marker, 'Invoice'), lineitems: [line()] });
  // Payments apply to both invoices (applications, balances and the invoices' payment relations).
  await created('payments', 'payment', { customer_id: c0.id, amount: '5', method: 'check', reference: u(marker, 'Payment'), applications: [{ invoice_id: inv0.id, amount: '1' }], ...cf('Payment') });
  await created('payments', 'payment', { customer_id: c1.id, amount: '1', method: 'cash', memo: u(marker, 'Payment'), applications: [{ invoice_id: inv1.id, amount: '1' }] });
  // Sales orders with lines; the first is invoiced (the invoice's sales_order_id, SalesOrder.invoices), the second not.
  const so0 = await created('sales_orders', 'sales_order', {
    customer_id: c0.id,
    site_id: s0.id,
    contact_id: ct0.id,
    tax_rate_id: t0.id,
    reference: u(marker, 'Sales order'),
    customer_notes: u(marker, 'notes'),
    lineitems: [line(), { description: u(marker, 'labor'), quantity: 1, unit_price: '50' }],
    ...cf('SalesOrder'),
  });
  await created('sales_orders', 'sales_order', { customer_id: c1.id, reference: u(marker, 'Sales order'), lineitems: [line()] });
  const billed = await api.post(`/sales_orders/${so0.id}/invoice`, { invoice: { reference: u(marker, 'Invoice') } }, freshKey());
  expect(billed.status, billed.text).toBe(201);
  // Recurring templates whose horizons create records (RecurringJob.jobs, RecurringInvoice.invoices, the records'
  // recurring_*_id), with the records' own labels and custom fields; one of each with a skipped occurrence.
  const weekly = { rule: 'FREQ=WEEKLY;BYDAY=MO,TH', start_date: new Date().toISOString().slice(0, 10), horizon_days: 14 };
  const rj0 = await created('recurring_jobs', 'recurring_job', { customer_id: c0.id, site_id: s0.id, contact_id: ct0.id, title: u(marker, 'Recurring job'), start_time: '08:30', assignments: [{ user_id: tenant.userId }], lineitems: [line()], ...weekly, ...cf('Job') });
  await created('recurring_jobs', 'recurring_job', { customer_id: c0.id, site_id: s0.id, title: u(marker, 'Recurring job'), ...weekly, horizon_days: 0 });
  const ri0 = await created('recurring_invoices', 'recurring_invoice', { customer_id: c0.id, site_id: s0.id, tax_rate_id: t0.id, reference: u(marker, 'Recurring invoice'), lineitems: [line()], ...weekly, ...cf('Invoice') });
  await created('recurring_invoices', 'recurring_invoice', { customer_id: c1.id, reference: u(marker, 'Recurring invoice'), ...weekly, horizon_days: 0 });
  for (const [plural, id] of [['recurring_jobs', rj0.id], ['recurring_invoices', ri0.id]] as const) {
    const [upcoming] = (await api.get(`/${plural}/${id}/occurrences?from=${weekly.start_date}&limit=100`)).body.data.filter((o: { state: string }) => o.state === 'upcoming');
    const skipped = await api.post(`/${plural}/${id}/skip`, { date: upcoming.date });
    expect(skipped.status, skipped.text).toBe(200);
  }

  // Stock: a warehouse and a technician's van, stock counted in (two levels, two adjustments) and two transfers.
  const w0 = await created('stock_locations', 'stock_location', { name: u(marker, 'Warehouse'), kind: 'warehouse', description: u(marker, 'Shelf') });
  const w1 = await created('stock_locations', 'stock_location', { name: u(marker, 'Van'), kind: 'vehicle', technician_id: tech.id });
  await created('stock_adjustments', 'stock_adjustment', { location_id: w0.id, item_id: i0.id, quantity: '10', reason: u(marker, 'Count') });
  await created('stock_adjustments', 'stock_adjustment', { location_id: w1.id, item_id: i0.id, quantity: '2', reason: u(marker, 'Count') });
  await created('inventory_transfers', 'inventory_transfer', { from_location_id: w0.id, to_location_id: w1.id, note: u(marker, 'Transfer'), lines: [{ item_id: i0.id, quantity: '3' }] });
  await created('inventory_transfers', 'inventory_transfer', { from_location_id: w1.id, to_location_id: w0.id, lines: [{ item_id: i0.id, quantity: '1' }] });
  made.set('stock_levels', (await api.get(`/stock_levels?item_id=${i0.id}`)).body.data.map((level: { id: string }) => ({ id: level.id, etag: '', record: level })));

  // Purchasing: vendors (the first an item's preferred vendor), orders with lines into the warehouse, the first
  // received twice in part (receipts are made only by receiving; stock moves into the warehouse).
  const v0 = await created('vendors', 'vendor', { name: u(marker, 'Vendor'), reference: u(marker, 'ref'), city: u(marker, 'City'), ...cf('Vendor') });
  await created('vendors', 'vendor', { name: u(marker, 'Vendor') });
  await created('items', 'item', { name: u(marker, 'Item'), item_type: 'material', unit_price: '3', preferred_vendor_id: v0.id });
  const po0 = await created('purchase_orders', 'purchase_order', {
    vendor_id: v0.id,
    location_id: w0.id,
    reference: u(marker, 'PO'),
    memo: u(marker, 'memo'),
    lines: [{ item_id: i0.id, quantity: '4', unit_cost: '2' }, { description: u(marker, 'Freight'), quantity: '1', unit_cost: '5' }],
    ...cf('PurchaseOrder'),
  });
  await created('purchase_orders', 'purchase_order', { vendor_id: v0.id, job_id: j0.id, lines: [{ item_id: i0.id, quantity: '1', unit_cost: '2' }] });
  for (const quantity of ['1', '2']) {
    const res = await api.post(`/purchase_orders/${po0.id}/receive`, { receipt: { lines: [{ line_id: po0.record.lines[0].id, quantity }], note: u(marker, 'Receipt') } }, freshKey());
    expect(res.status, res.text).toBe(201);
    made.set('purchase_order_receipts', [...(made.get('purchase_order_receipts') ?? []), { id: res.body.data.receipt.id, etag: res.headers.get('etag') ?? '', record: res.body.data.receipt }]);
  }

  // Tasks: about the first customer (assigned to the technician), about the first deal, and about no record.
  await created('tasks', 'task', {
    title: u(marker, 'Task'),
    description: u(marker, 'Task note'),
    taskable_type: 'Customer',
    taskable_id: c0.id,
    assignee_id: tech.id,
    due_date: '2026-06-03',
    priority: 'high',
    ...cf('Task'),
  });
  await created('tasks', 'task', { title: u(marker, 'Task'), taskable_type: 'Deal', taskable_id: d0.id, assignee_id: tenant.userId });
  await created('tasks', 'task', { title: u(marker, 'Task') });

  // Webhook endpoints (registering one runs the verification handshake against the receiver), each with a test
  // delivery, so that GET .../deliveries lists records of B's that A must not reach.
  if (options.webhookUrl) {
    for (let i = 0; i < 2; i += 1) {
      const endpoint = await created('webhooks/endpoints', 'endpoint', { url: options.webhookUrl, topics: [QUIET_TOPIC], description: u(marker, 'Webhook endpoint') });
      const test = await api.post(`/webhooks/endpoints/${endpoint.id}/test`);
      expect(test.status, test.text).toBe(200);
    }
  }

  // Any other resource of the app: two records of its required fields.
  const resources = [...t.app.domain.resources.values()].map((service) => service.def);
  const reference = (model: string) => {
    if (model === 'user') return tenant.userId;
    const def = resources.find((d) => d.model === model);
    return def ? made.get(restPath(def))?.[0]?.id : undefined;
  };
  for (const def of resources) {
    if (def.nested) continue;
    while ((made.get(restPath(def))?.length ?? 0) < 2) await created(restPath(def), bodyKeyOf(def), plainFields(def, marker, reference, cf(def.className)));
  }
  // Files: an attachment field of the first customer holds one (PUT multipart), so GET /files/{file_id} and the
  // attachment paths have records of the tenant's to name (the file_id is in the record's custom_fields).
  const attachment = (await admin.addCustomField({ accountId: tenant.accountId, relatedName: 'Customer', name: `${marker} Customer file`, type: 'attachment' })).id;
  const customer = await readRecord(api, 'customers', c0.id);
  const upload = await api.request('PUT', `/customers/${c0.id}/custom_fields/${attachment}`, {
    raw: new Uint8Array(multipartFile(`${marker}-contract.txt`, `${marker} file`)),
    headers: { 'content-type': `multipart/form-data; boundary=${SWEEP_BOUNDARY}`, 'if-match': customer.etag },
  });
  expect(upload.status, upload.text).toBe(200);
  // A nested resource (notes): two records under the first record of each parent resource.
  for (const def of resources) {
    for (const { parent } of parentsOf(def, resources)) {
      const record = made.get(restPath(parent))?.[0];
      if (!record) throw new Error(`seedTenant: no ${restPath(parent)} to put ${def.plural} on`);
      for (let i = 0; i < 2; i += 1) await created(`${restPath(parent)}/${record.id}/${def.plural}`, bodyKeyOf(def), plainFields(def, marker, reference, cf(def.className)));
    }
  }
  return { tenant, api, marker };
}

/** The boundary of the multipart bodies the sweep sends (sweep-rest.ts sends one to every multipart operation). */
export const SWEEP_BOUNDARY = 'sweep-boundary-1c9e';

/** A multipart/form-data body holding one text file. */
export function multipartFile(filename: string, text: string): Buffer {
  return Buffer.from(`--${SWEEP_BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: text/plain\r\n\r\n${text}\r\n--${SWEEP_BOUNDARY}--\r\n`);
}
