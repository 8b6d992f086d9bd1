import fc from 'fast-check';
import type { Tenant, TestApp } from '../helpers/app.ts';
import { client, type ApiResponse, type Client } from '../helpers/http.ts';
import { freshKey } from '../helpers/factories/records.ts';
import { valueArb, type CustomFieldDef, type GenContext, type WorldView } from './openapi-arbitraries.ts';
import { Ref, Repeat, serialize, type JTree } from './json-tree.ts';
import { nestedCollections, poolOfPath, type CollectionModel, type OpenApiModel } from './openapi-model.ts';

// The seeded tenant the fuzz runs against: pools of live records per collection (their ids fill {id} path
// parameters and <class>_id body fields), their current ETags (If-Match), the tenant's lookups (statuses,
// labels, custom field definitions), a real cursor per list, and a cheap fingerprint of the whole database.
// Records are made through the API. The seed recipes below know the business rules of today's resources (a job
// needs a site of its customer ...); a collection without a recipe is seeded from its create schema, and the
// fuzz refuses to start when that fails, so a new resource is never silently left without rows.

export interface PoolEntry {
  id: string;
  /** The parent record of a sub-collection entry (the contact of a linkage). */
  parent?: string;
}

type Recipe = (world: World) => Promise<PoolEntry>;

let sequence = 0;
const unique = (prefix: string) => `${prefix} ${process.pid}-${(sequence += 1)}`;

/** Seed recipes, in dependency order, by collection name. */
const recipes: Record<string, Recipe> = {
  customers: async (w) => ({ id: (await w.create('customers', { organization: unique('Fuzz Customer') })).id }),
  leads: async (w) => ({ id: (await w.create('leads', { organization: unique('Fuzz Lead'), first_name: 'Lee' })).id }),
  // Deals: with a customer or (every other one) with a lead: exactly one of them.
  deals: async (w) => {
    const party = w.next() % 2 === 0 ? { customer_id: (await w.liveEntry('customers', w.next())).id } : { lead_id: (await w.liveEntry('leads', w.next())).id };
    return { id: (await w.create('deals', { name: unique('Fuzz Deal'), value_amount: '250', ...party })).id };
  },
  // Tasks: about a customer (the pair taskable_type / taskable_id), or about no record.
  tasks: async (w) => {
    const parent = w.next() % 2 === 0 ? { taskable_type: 'Customer', taskable_id: (await w.liveEntry('customers', w.next())).id } : {};
    return { id: (await w.create('tasks', { title: unique('Fuzz Task'), ...parent })).id };
  },
  sites: async (w) => {
    const customer = await w.liveEntry('customers', w.next());
    return { id: (await w.create('sites', siteFields('Customer', customer.id))).id };
  },
  contacts: async (w) => {
    const contact = await w.create('contacts', { first_name: 'Pat', last_name: unique('Contact') });
    // Linked to a customer: the first contact of a customer becomes its primary, later ones are not (deletable links).
    const customer = await w.liveEntry('customers', 0);
    const linkage = await w.createIn('/contacts/{id}/linkages', contact.id, { linkable_id: customer.id, linkable_type: 'Customer' });
    w.add('contacts/linkages', { id: linkage.id, parent: contact.id });
    return { id: contact.id };
  },
  'contacts/linkages': async (w) => {
    const contact = await w.create('contacts', { first_name: 'Lin', last_name: unique('Kage') });
    w.add('contacts', { id: contact.id });
    // The customer already has its primary contact (recipe above), so this link is not primary: it can be deleted.
    const customer = await w.liveEntry('customers', 0);
    const linkage = await w.createIn('/contacts/{id}/linkages', contact.id, { linkable_id: customer.id, linkable_type: 'Customer', relationship_type: 'billing' });
    return { id: linkage.id, parent: contact.id };
  },
  items: async (w) => ({ id: (await w.create('items', { name: unique('Fuzz Item'), item_type: 'material', unit_price: '10.50' })).id }),
  tax_rates: async (w) => ({ id: (await w.create('tax_rates', { name: unique('Fuzz Tax'), rate: '8.25' })).id }),
  customer_item_prices: async (w) => {
    const item = await w.create('items', { name: unique('Priced Item'), item_type: 'service', unit_price: '20' });
    w.add('items', { id: item.id });
    const customer = await w.liveEntry('customers', w.next());
    return { id: (await w.create('customer_item_prices', { customer_id: customer.id, item_id: item.id, unit_price: '12.50' })).id };
  },
  systems: async (w) => {
    const site = await w.liveEntry('sites', w.next());
    return { id: (await w.create('systems', { site_id: site.id, system_type: unique('Boiler'), name: unique('System') })).id };
  },
  assets: async (w) => {
    const site = await w.liveEntry('sites', w.next());
    return { id: (await w.create('assets', { site_id: site.id, name: unique('Fuzz Asset'), serial_number: unique('SN'), install_date: '2024-01-01' })).id };
  },
  projects: async (w) => {
    const customer = await w.liveEntry('customers', w.next());
    return { id: (await w.create('projects', { name: unique('Fuzz Project'), customer_id: customer.id, start_date: '2026-01-01' })).id };
  },
  jobs: async (w) => {
    const item = await w.liveEntry('items', 0);
    const job = await w.atPlace((customer, site) => w.create('jobs', { customer_id: customer, site_id: site, title: unique('Fuzz Job'), lineitems: [{ item_id: item.id, quantity: '2' }] }));
    return { id: job.id };
  },
  // Templates whose horizon is today only: a seed makes at most one record of its own.
  recurring_jobs: async (w) => {
    const template = await w.atPlace((customer, site) => w.create('recurring_jobs', { customer_id: customer, site_id: site, title: unique('Fuzz Visit'), rule: 'FREQ=MONTHLY;BYMONTHDAY=1', start_date: '2026-01-01', start_time: '09:00', horizon_days: 0 }));
    return { id: template.id };
  },
  recurring_invoices: async (w) => {
    const customer = await w.liveEntry('customers', w.next());
    return { id: (await w.create('recurring_invoices', { customer_id: customer.id, rule: 'FREQ=MONTHLY;BYMONTHDAY=1', start_date: '2026-01-01', horizon_days: 0, lineitems: [{ description: 'Service plan', quantity: '1', unit_price: '49' }] })).id };
  },
  // A ticket of a customer at one of its sites; every other one is converted into a job (converted_job_id, ticket_id).
  tickets: async (w) => {
    const ticket = await w.atPlace((customer, site) => w.create('tickets', { subject: unique('Fuzz Ticket'), customer_id: customer, site_id: site, priority: 'high', channel: 'email' }));
    if (w.next() % 2 === 1) await w.post(`/tickets/${ticket.id}/convert`, {});
    return { id: ticket.id };
  },
  stock_locations: async (w) => ({ id: (await w.create('stock_locations', { name: unique('Fuzz Shelf'), kind: 'warehouse' })).id }),
  // Stock is counted in (a level) before it moves: adjustments and transfers need a material item with stock.
  stock_adjustments: async (w) => {
    const item = await w.stockable();
    const location = await w.liveEntry('stock_locations', w.next());
    return { id: (await w.create('stock_adjustments', { item_id: item.id, location_id: location.id, quantity: '50', reason: 'fuzz count' })).id };
  },
  stock_levels: async (w) => {
    const item = await w.stockable();
    const location = await w.liveEntry('stock_locations', w.next());
    await w.create('stock_adjustments', { item_id: item.id, location_id: location.id, quantity: '5', reason: 'fuzz count' });
    const level = await w.api.get(`/stock_levels?item_id=${item.id}`);
    return { id: level.body.data[0].id as string };
  },
  inventory_transfers: async (w) => {
    const item = await w.stockable();
    const from = await w.liveEntry('stock_locations', 0);
    await w.create('stock_adjustments', { item_id: item.id, location_id: from.id, quantity: '1', reason: 'fuzz count' });
    const to = await w.create('stock_locations', { name: unique('Fuzz Van'), kind: 'vehicle' });
    w.add('stock_locations', { id: to.id });
    return { id: (await w.create('inventory_transfers', { from_location_id: from.id, to_location_id: to.id, lines: [{ item_id: item.id, quantity: '1' }] })).id };
  },
  purchase_orders: async (w) => {
    const item = await w.stockable();
    const vendor = await w.liveEntry('vendors', w.next());
    const location = await w.liveEntry('stock_locations', 0);
    return { id: (await w.create('purchase_orders', { vendor_id: vendor.id, location_id: location.id, lines: [{ item_id: item.id, quantity: '20', unit_cost: '2' }] })).id };
  },
  // Receipts are made by receiving an order (one unit of its first line each).
  purchase_order_receipts: async (w) => {
    const order = await w.liveEntry('purchase_orders', w.next());
    const read = await w.api.get(`/purchase_orders/${order.id}`);
    const receipt = await w.post(`/purchase_orders/${order.id}/receive`, { receipt: { lines: [{ line_id: read.body.data.lines[0].id, quantity: '1' }] } });
    return { id: receipt.receipt.id as string };
  },
  // Webhook endpoints point at the fuzz's echo receiver, so that registering one passes the verification handshake.
  // Their topic is one nothing in the fuzz emits (an endpoint is paused only after failed deliveries, which an
  // endpoint of this topic alone never gets): no delivery or replay then writes to the database in the background,
  // between a request and the fingerprint that checks it. Each gets a test delivery, for GET .../deliveries.
  'webhooks/endpoints': async (w) => {
    const endpoint = await w.create('webhooks/endpoints', { url: w.receiverUrl(), topics: [QUIET_TOPIC], description: unique('Fuzz endpoint') });
    await w.action(`/webhooks/endpoints/${endpoint.id}/test`);
    return { id: endpoint.id };
  },
  'webhooks/endpoints/deliveries': async (w) => {
    const endpoint = await w.liveEntry('webhooks/endpoints', w.next());
    const delivery = await w.action(`/webhooks/endpoints/${endpoint.id}/test`);
    return { id: delivery.id, parent: endpoint.id };
  },
  estimates: async (w) => {
    const estimate = await w.atPlace((customer, site) =>
      w.create('estimates', { customer_id: customer, site_id: site, title: unique('Fuzz Estimate'), lineitems: [{ description: 'Labour', quantity: 1, unit_price: '99.99' }] }),
    );
    // Every other estimate is Accepted, so that conversion has something to convert.
    if (w.next() % 2 === 0) await w.patch('estimates', estimate.id, { status: 'Accepted' });
    return { id: estimate.id };
  },
};

/** The topic of the fuzz's webhook endpoints (see the recipe). */
const QUIET_TOPIC = 'webhook_endpoint.paused';

function siteFields(type: string, id: string) {
  return { site_name: unique('Fuzz Site'), street: '1 Main Street', city: 'Springfield', state: 'IL', siteable_id: id, siteable_type: type };
}

/** How long a fingerprint waits for the webhook dispatcher to catch up with the outbox (it polls every 5 s at worst). */
const SETTLE_MS = 10_000;

const MIN_POOL = 2;
const MAX_POOL = 4;

/**
 * Whether the app may have written since the last fingerprint, from the statements it sent for requests (the
 * test app's onQuery; the job queue's background work is not reported, and settle() waits for it). A statement
 * counts as a write unless it is plainly a read: SELECT (or SHOW, a transaction statement, SET) calling nothing that
 * writes. Only a span with no write at all reuses the last fingerprint; anything else is fingerprinted again.
 */
export class WriteWatch {
  private wrote = true;
  private static readonly read = /^\s*(SELECT|SHOW|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|SET|DEALLOCATE)\b/i;
  private static readonly writing = /\b(INSERT|UPDATE|DELETE|MERGE|TRUNCATE|COPY|nextval|setval|fl_refresh_\w+)\b/i;
  /** For the test app's onQuery. */
  readonly note = (sql: string): void => {
    // Without its comment lines (the driver reports the COMMIT and ROLLBACK it sends as a comment alone).
    const statement = sql.replace(/^\s*--[^\n]*(\n|$)/gm, '');
    if (statement.trim() === '') return;
    if (!WriteWatch.read.test(statement) || WriteWatch.writing.test(statement)) this.wrote = true;
  };
  /** True when a write may have been sent since the last call. */
  take(): boolean {
    const wrote = this.wrote;
    this.wrote = false;
    return wrote;
  }
}

export class World implements WorldView {
  readonly api: Client;
  private readonly pools = new Map<string, PoolEntry[]>();
  private readonly etags = new Map<string, string>();
  /** Ids seen live since the last successful delete or action (conversion): no need to read them again. */
  private readonly verified = new Set<string>();
  private place: { customer: string; site: string } | undefined;
  private readonly rows = new Map<string, Record<string, any>[]>();
  private readonly cursors = new Map<string, string>();
  private fingerprintSql = '';
  private lastFingerprint: string | null = null;
  private counter = 0;
  /** Ids of files stored on seeded records (GET /files/{file_id} needs some to reach a file). */
  private readonly files: string[] = [];

  constructor(
    readonly testApp: TestApp,
    readonly tenant: Tenant,
    readonly model: OpenApiModel,
    /** Where webhook endpoints point: a receiver that echoes the verification challenge (the app must be allowed to reach it). */
    readonly webhookUrl?: string,
    /** The app's statements (its onQuery): fingerprints are only computed again after a write. */
    private readonly writes?: WriteWatch,
  ) {
    this.api = client(`${testApp.url}/api/v2`, tenant.token);
  }

  // ---- WorldView ----

  lookupValues(lookup: string, className: string): string[] {
    return (this.rows.get(lookup) ?? []).filter((r) => r.related_name === className && typeof r.display_name === 'string').map((r) => r.display_name as string);
  }

  customFields(className: string): CustomFieldDef[] {
    return (this.rows.get('custom_field_definitions') ?? []).filter((r) => r.related_name === className) as CustomFieldDef[];
  }

  userIds(): number[] {
    return [this.tenant.userId];
  }

  cursor(collection: string): string | undefined {
    return this.cursors.get(collection);
  }

  poolNames(): string[] {
    return [...this.pools.keys()];
  }

  // ---- seeding ----

  next(): number {
    return (this.counter += 1);
  }

  /** POST through the API, insisting on 201; returns the record. */
  async post(path: string, body: unknown): Promise<Record<string, any>> {
    this.lastFingerprint = null;
    const res = await this.api.post(path, body, freshKey());
    if (res.status !== 201) throw new Error(`fuzz seed: POST ${path} answered ${res.status}: ${res.text.slice(0, 500)}`);
    return res.body.data;
  }

  /** POST of an action without a body, insisting on 200 (a webhook endpoint's test delivery); returns its data. */
  async action(path: string): Promise<Record<string, any>> {
    this.lastFingerprint = null;
    const res = await this.api.post(path, undefined, freshKey());
    if (res.status !== 200) throw new Error(`fuzz seed: POST ${path} answered ${res.status}: ${res.text.slice(0, 500)}`);
    return res.body.data;
  }

  /** The URL webhook endpoints are registered with. */
  receiverUrl(): string {
    if (!this.webhookUrl) throw new Error('fuzz seed: webhook endpoints need a receiver: pass its URL to new World(...)');
    return this.webhookUrl;
  }

  /** A body of the operation: the fields under its documented wrapper key, or the fields themselves without one. */
  private bodyOf(method: string, path: string, fields: Record<string, unknown>): Record<string, unknown> {
    const op = this.model.operations.find((o) => o.method === method && o.path === path);
    if (!op?.body) throw new Error(`fuzz seed: no ${method} ${path} with a body in the document`);
    return op.body.wrapperKey ? { [op.body.wrapperKey]: fields } : fields;
  }

  /** Creates a record of a collection. */
  /** A new material item (only those are stocked), added to the items pool. */
  async stockable(): Promise<Record<string, any>> {
    const item = await this.create('items', { name: unique('Stocked Item'), item_type: 'material', unit_price: '1' });
    this.add('items', { id: item.id });
    return item;
  }

  async create(collection: string, fields: Record<string, unknown>): Promise<Record<string, any>> {
    return this.post(`/${collection}`, this.bodyOf('POST', `/${collection}`, fields));
  }

  /** Creates a record of a sub-collection (POST /contacts/{id}/linkages) of the parent `id`. */
  async createIn(path: string, id: string, fields: Record<string, unknown>): Promise<Record<string, any>> {
    return this.post(path.replace('{id}', id), this.bodyOf('POST', path, fields));
  }

  async patch(collection: string, id: string, fields: Record<string, unknown>): Promise<void> {
    const body = this.bodyOf('PATCH', `/${collection}/{id}`, fields);
    const etag = await this.currentEtag(collection, id);
    this.lastFingerprint = null;
    const res = await this.api.patch(`/${collection}/${id}`, body, { headers: { 'if-match': etag ?? '' } });
    if (res.status !== 200) throw new Error(`fuzz seed: PATCH /${collection}/${id} answered ${res.status}: ${res.text.slice(0, 500)}`);
    this.etags.clear();
  }

  /**
   * Makes a record that needs a customer and a site of that customer (a job, an estimate): at the last place
   * made, or, when that fails (the fuzz deleted them), at a new customer with a site of its own.
   */
  async atPlace(make: (customer: string, site: string) => Promise<Record<string, any>>): Promise<Record<string, any>> {
    if (this.place) {
      try {
        return await make(this.place.customer, this.place.site);
      } catch {
        this.place = undefined;
      }
    }
    const customer = await this.create('customers', { organization: unique('Fuzz Place') });
    this.add('customers', { id: customer.id });
    const site = await this.create('sites', siteFields('Customer', customer.id));
    this.add('sites', { id: site.id });
    this.place = { customer: customer.id, site: site.id };
    return make(customer.id, site.id);
  }

  /** Adds a record to a pool; a pool keeps its newest MAX_POOL records (the others stay in the database). */
  add(pool: string, entry: PoolEntry): void {
    const entries = this.pools.get(pool) ?? [];
    if (!entries.some((e) => e.id === entry.id)) entries.push(entry);
    this.pools.set(pool, entries.slice(-MAX_POOL));
  }

  /** Tenant configuration the API cannot write: a label and one custom field of every type per class. */
  private async configureTenant(): Promise<void> {
    const classes = new Set<string>();
    for (const op of this.model.operations) for (const p of op.queryParams) if (p.name === 'related_name') for (const c of (p.schema.enum ?? []) as string[]) classes.add(c);
    const cfd = this.model.collections.get('custom_field_definitions');
    const types = ((cfd ? this.model.resolve(this.model.doc.components?.schemas?.[cfd.className])?.properties?.field_type?.enum : undefined) ?? []) as string[];
    const admin = this.testApp.app.domain.admin;
    for (const relatedName of classes) {
      await admin.addLookup('label', { accountId: this.tenant.accountId, relatedName, name: 'Fuzz VIP' });
      for (const type of types) {
        const options = type === 'select' || type === 'multiselect' ? ['Red', 'Blue'] : undefined;
        await admin.addCustomField({ accountId: this.tenant.accountId, relatedName, name: `Fuzz ${type}`, type, options });
      }
    }
  }

  /** Everything the fuzz needs before its first request. */
  async seed(): Promise<void> {
    await this.configureTenant();
    // Read-only collections (lookups, catalogs): their rows as served.
    for (const c of this.model.collections.values()) {
      if (c.parent || c.creatable) continue;
      await this.listInto(c);
    }
    for (const name of Object.keys(recipes)) if (this.model.collections.has(name)) await this.refill(name);
    for (const c of this.model.collections.values()) {
      if (!c.creatable || this.pools.has(c.name)) continue;
      if (!c.parent) await this.refill(c.name);
    }
    for (const c of this.model.collections.values()) {
      if (c.parent && !this.pools.has(c.name)) await this.listSubCollection(c);
    }
    // A nested resource's records (notes) under each parent collection, without a recipe: made from the create schema.
    for (const c of this.model.collections.values()) {
      if (c.parent && c.creatable && !recipes[c.name] && (this.pools.get(c.name)?.length ?? 0) === 0) {
        for (let made = 0; made < MIN_POOL; made++) this.add(c.name, await this.genericUnder(c));
      }
    }
    const empty = [...this.model.collections.values()].filter((c) => (this.pools.get(c.name)?.length ?? 0) === 0 && (c.creatable || c.parent));
    if (empty.length) throw new Error(`fuzz seed: no records for ${empty.map((c) => c.listPath).join(', ')}: add a recipe to test/fuzz/fuzz-world.ts`);
    await this.storeFiles();
    await this.takeCursors();
    await this.buildFingerprint();
  }

  /** Stores a small file on the attachment field of a few seeded customers, for the file downloads to reach. */
  private async storeFiles(): Promise<void> {
    for (let n = 0; n < 3; n++) {
      const fileId = await this.storeFile(n);
      if (!fileId) return;
      this.files.push(fileId);
    }
  }

  /** Stores a small file on the attachment field of a live customer; undefined when customers have no such field. */
  private async storeFile(n: number): Promise<string | undefined> {
    const field = this.customFields('Customer').find((def) => def.field_type === 'attachment');
    if (!field) return undefined;
    const customer = await this.liveEntry('customers', n);
    const boundary = 'fuzz-seed-boundary';
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="seed.txt"\r\nContent-Type: text/plain\r\n\r\nfuzz seed file\r\n--${boundary}--\r\n`;
    const current = await this.api.get(`/customers/${customer.id}`);
    const res = await fetch(`${this.testApp.url}/api/v2/customers/${customer.id}/custom_fields/${field.id}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${this.tenant.token}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'if-match': current.headers.get('etag')! },
      body,
    });
    const stored = (await res.json()) as { data?: { custom_fields?: Record<string, { file_id?: string }> } };
    const fileId = stored.data?.custom_fields?.[field.id]?.file_id;
    if (res.status !== 200 || !fileId) throw new Error(`fuzz seed: storing a file on a customer answered ${res.status}`);
    this.etags.delete(customer.id);
    this.lastFingerprint = null;
    return fileId;
  }

  /**
   * The id of a file still attached to a record: the fuzz clears and replaces attachment fields and deletes the
   * customers that hold them, so a file found gone is stored again on a live customer. Undefined: no attachment field.
   */
  async liveFileId(n: number): Promise<string | undefined> {
    if (this.files.length === 0) return undefined;
    const i = n % this.files.length;
    const res = await this.api.get(`/files/${this.files[i]}`);
    if (res.status !== 200) this.files[i] = (await this.storeFile(n)) ?? this.files[i];
    return this.files[i];
  }

  private async listInto(c: CollectionModel): Promise<void> {
    const res = await this.api.get(c.listPath);
    if (res.status !== 200 || !Array.isArray(res.body?.data)) throw new Error(`fuzz seed: GET ${c.listPath} answered ${res.status}: ${res.text.slice(0, 300)}`);
    this.rows.set(c.name, res.body.data);
    this.pools.set(c.name, res.body.data.filter((r: any) => typeof r.id === 'string').slice(0, 20).map((r: any) => ({ id: r.id })));
  }

  private async listSubCollection(c: CollectionModel): Promise<void> {
    const entries: PoolEntry[] = [];
    for (const parent of this.pools.get(c.parent!) ?? []) {
      const res = await this.api.get(c.listPath.replace('{id}', parent.id));
      if (res.status === 200 && Array.isArray(res.body?.data)) for (const r of res.body.data) entries.push({ id: r.id, parent: parent.id });
    }
    this.pools.set(c.name, entries);
  }

  /** A record of a collection without a recipe, from its create schema: the first generated body the API accepts. */
  private async generic(name: string): Promise<PoolEntry> {
    const op = this.model.operations.find((o) => o.method === 'POST' && o.path === `/${name}`);
    if (!op?.body) throw new Error(`fuzz seed: no recipe and no create body for ${name}`);
    const ctx: GenContext = { model: this.model, world: this };
    const samples = fc.sample(valueArb(ctx, op.body.schema, undefined, 0), { seed: 42, numRuns: 30 });
    let last: ApiResponse | undefined;
    for (const sample of samples) {
      const refs = new Map<Ref, string>();
      await this.resolveRefs(sample, refs);
      this.lastFingerprint = null;
      last = await this.api.request('POST', `/${name}`, { raw: serialize(sample, (r) => refs.get(r)!), headers: { 'content-type': 'application/json', ...freshKey().headers } });
      if (last.status === 201) return { id: last.body.data.id };
    }
    throw new Error(`fuzz seed: no recipe for /${name} and none of 30 generated bodies was accepted (last: ${last?.status} ${last?.text.slice(0, 300)}); add a recipe to test/fuzz/fuzz-world.ts`);
  }

  /**
   * A record of a sub-collection without a recipe, under a live record of its parent, from its create schema; a
   * nested resource's record (a note) joins the pool of its record path (notes) too.
   */
  private async genericUnder(c: CollectionModel): Promise<PoolEntry> {
    const op = this.model.operations.find((o) => o.method === 'POST' && o.path === c.listPath);
    if (!op?.body) throw new Error(`fuzz seed: no recipe and no create body for ${c.listPath}`);
    const parent = await this.liveEntry(c.parent!, this.next());
    const ctx: GenContext = { model: this.model, world: this };
    const samples = fc.sample(valueArb(ctx, op.body.schema, undefined, 0), { seed: 42, numRuns: 30 });
    let last: ApiResponse | undefined;
    for (const sample of samples) {
      const refs = new Map<Ref, string>();
      await this.resolveRefs(sample, refs);
      this.lastFingerprint = null;
      last = await this.api.request('POST', c.listPath.replace('{id}', parent.id), { raw: serialize(sample, (r) => refs.get(r)!), headers: { 'content-type': 'application/json' } });
      if (last.status === 201) {
        const record = c.name.slice(c.name.lastIndexOf('/') + 1);
        if (nestedCollections(this.model, record).length > 0) this.add(record, { id: last.body.data.id });
        return { id: last.body.data.id, parent: parent.id };
      }
    }
    throw new Error(`fuzz seed: no recipe for ${c.listPath} and none of 30 generated bodies was accepted (last: ${last?.status} ${last?.text.slice(0, 300)}); add a recipe to test/fuzz/fuzz-world.ts`);
  }

  private async refill(pool: string): Promise<void> {
    const collection = this.model.collections.get(pool);
    const nested = collection ? [] : nestedCollections(this.model, pool);
    if (nested.length > 0) {
      for (let made = 0; (this.pools.get(pool)?.length ?? 0) < MIN_POOL; made++) {
        if (made >= 10) throw new Error(`fuzz: pool ${pool} stays below ${MIN_POOL} records after 10 creates`);
        const under = nested[made % nested.length];
        this.add(under.name, await this.genericUnder(under));
      }
      return;
    }
    if (!collection) return;
    if (!collection.creatable && !collection.parent && !recipes[pool]) return this.listInto(collection);
    for (let made = 0; (this.pools.get(pool)?.length ?? 0) < MIN_POOL; made++) {
      if (made >= 10) throw new Error(`fuzz: pool ${pool} stays below ${MIN_POOL} records after 10 creates`);
      const entry = recipes[pool] ? await recipes[pool](this) : await this.generic(pool);
      this.add(pool, entry);
    }
  }

  private async takeCursors(): Promise<void> {
    for (const op of this.model.operations) {
      if (op.method !== 'GET' || !op.queryParams.some((p) => p.name === 'cursor') || op.pathParams.length) continue;
      const res = await this.api.get(`${op.path}?limit=1`);
      const link = res.headers.get('link');
      const cursor = link ? new URL(/<([^>]+)>/.exec(link)?.[1] ?? '/', this.testApp.url).searchParams.get('cursor') : null;
      if (cursor) this.cursors.set(op.collection, cursor);
    }
  }

  // ---- pools during the fuzz ----

  /** An entry of a pool (n modulo its size), refilled below MIN_POOL. It may have been deleted since (body references). */
  async entry(pool: string, n: number): Promise<PoolEntry> {
    if ((this.pools.get(pool)?.length ?? 0) < MIN_POOL) await this.refill(pool);
    const entries = this.pools.get(pool) ?? [];
    if (entries.length === 0) throw new Error(`fuzz: pool ${pool} is empty`);
    return entries[n % entries.length];
  }

  /** A live entry of a pool (path parameters, seed parents): read again after deletions, dropped when gone. */
  async liveEntry(pool: string, n: number): Promise<PoolEntry> {
    for (let attempt = 0; attempt < 10; attempt++) {
      const entry = await this.entry(pool, n);
      if (this.verified.has(entry.id) || (await this.verify(pool, entry))) return entry;
      this.pools.set(pool, (this.pools.get(pool) ?? []).filter((e) => e.id !== entry.id));
    }
    throw new Error(`fuzz: no live record in pool ${pool}`);
  }

  private async verify(pool: string, entry: PoolEntry): Promise<boolean> {
    const collection = this.model.collections.get(pool);
    if (collection?.parent && entry.parent) {
      const res = await this.api.get(collection.listPath.replace('{id}', entry.parent));
      if (res.status !== 200) return false;
      for (const r of res.body.data) this.verified.add(r.id);
      return this.verified.has(entry.id);
    }
    // A nested resource's record (a note) is read at its record path (GET /notes/{id}), which answers 404 once its
    // parent is deleted: such a record is dropped from its pool like a deleted one.
    const readable = collection ? collection.readable : nestedCollections(this.model, pool).length > 0;
    if (!readable) return true;
    const res = await this.api.get(`/${pool}/${entry.id}`);
    if (res.status !== 200) return false;
    this.verified.add(entry.id);
    const etag = res.headers.get('etag');
    if (etag) this.etags.set(entry.id, etag);
    return true;
  }

  /** The current ETag of a record (from the last response that carried it, else a GET). */
  async currentEtag(pool: string, id: string): Promise<string | undefined> {
    const known = this.etags.get(id);
    if (known) return known;
    const res = await this.api.get(`/${pool}/${encodeURIComponent(id)}`);
    const etag = res.status === 200 ? res.headers.get('etag') : null;
    if (etag) this.etags.set(id, etag);
    return etag ?? undefined;
  }

  /** Resolves every Ref of a body tree to a live id. */
  async resolveRefs(tree: JTree, into: Map<Ref, string>): Promise<void> {
    const walk = async (node: JTree): Promise<void> => {
      if (node instanceof Ref) into.set(node, (await this.entry(node.pool, node.n)).id);
      else if (node instanceof Repeat) await walk(node.element);
      else if (Array.isArray(node)) for (const v of node) await walk(v);
      else if (node && typeof node === 'object' && 'entries' in node) for (const [, v] of node.entries) await walk(v);
    };
    await walk(tree);
  }

  /**
   * Bookkeeping after a fuzz response: ETags served, records deleted. Any successful write may move other records'
   * ETags (a site edit touches its customer), so the ETag cache is dropped; a successful delete or action (convert)
   * may remove records of other pools (a customer's sites go with it), so live records are read again before a path
   * names them.
   */
  observe(method: string, opPath: string, ids: Record<string, string>, status: number, etag: string | null): void {
    const ok = status >= 200 && status < 300;
    if (!ok) return;
    if (method !== 'GET') this.etags.clear();
    // A record path (/customers/{id}, /webhooks/endpoints/{id}) serves the ETag of the record.
    if (etag && /^(\/[^{}]+)\/\{id\}$/.test(opPath) && ids.id) this.etags.set(ids.id, etag);
    const isList = [...this.model.collections.values()].some((c) => c.listPath === opPath);
    if (method === 'DELETE' || (method === 'POST' && !isList)) {
      if (method === 'DELETE') {
        const last = /\{([a-z_]+)\}$/.exec(opPath)?.[1];
        const pool = last ? poolOfPath(this.model, opPath, last) : undefined;
        const id = last ? ids[last] : undefined;
        if (pool && id) this.pools.set(pool, (this.pools.get(pool) ?? []).filter((e) => e.id !== id));
      }
      this.verified.clear();
    }
  }

  // ---- the database fingerprint ----

  /**
   * One SQL statement over every table of the schema (the tenant tables, the events outbox, counters, keys):
   * count(*), max(updated_at), sum(lock_version), count(deleted_at) and the like where the columns exist.
   */
  private async buildFingerprint(): Promise<void> {
    const raw = this.testApp.database.raw;
    const columns = await raw.$queryRawUnsafe<{ table_name: string; column_name: string }[]>(
      `SELECT c.table_name::text AS table_name, c.column_name::text AS column_name
         FROM information_schema.columns c
         JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
        WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' AND c.table_name <> '_prisma_migrations'
        ORDER BY c.table_name, c.ordinal_position`,
    );
    const aggregates: Record<string, (col: string) => string> = {
      updated_at: (c) => `max(${c})`,
      lock_version: (c) => `sum(${c})`,
      deleted_at: (c) => `count(${c})`,
      seq: (c) => `max(${c})`,
      last_value: (c) => `sum(${c})`,
      revoked_at: (c) => `count(${c})`,
      retired_at: (c) => `count(${c})`,
    };
    const tables = new Map<string, string[]>();
    for (const { table_name, column_name } of columns) {
      const parts = tables.get(table_name) ?? ['count(*)'];
      if (aggregates[column_name]) parts.push(aggregates[column_name](`"${column_name}"`));
      tables.set(table_name, parts);
    }
    if (tables.size === 0) throw new Error('fuzz: no tables found for the database fingerprint');
    // Rows the app removes in the background, whenever its job runs, are not the state a request leaves: released
    // files are deleted by the files-purge job (a request that released one still changes the count of the others).
    const background: Record<string, string> = { stored_files: `WHERE state <> 'released'` };
    const pairs = [...tables].map(([table, parts]) => `'${table}', (SELECT jsonb_build_array(${parts.join(', ')}) FROM "${table}" ${background[table] ?? ''})`);
    const chunks: string[] = [];
    for (let i = 0; i < pairs.length; i += 40) chunks.push(`jsonb_build_object(${pairs.slice(i, i + 40).join(', ')})`);
    this.fingerprintSql = `SELECT (${chunks.join(' || ')})::text AS fp`;
    await this.fingerprint();
  }

  /**
   * Waits (at most SETTLE_MS) until the webhook dispatcher has handed on every committed event: it moves its outbox
   * cursor (event_cursors) in the background, after the request that wrote the events has been answered, and that
   * move must not be taken for a write of the next request. The events themselves (count, max(seq)) stay in the
   * fingerprint: a refused request that appended one is still caught.
   */
  private async settle(): Promise<void> {
    const raw = this.testApp.database.raw;
    const until = Date.now() + SETTLE_MS;
    for (;;) {
      const [row] = await raw.$queryRawUnsafe<{ behind: boolean }[]>(
        `SELECT EXISTS (SELECT 1 FROM event_cursors WHERE seq < (SELECT coalesce(max(seq), 0) FROM events)) AS behind`,
      );
      if (!row?.behind || Date.now() > until) return;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }

  /**
   * The fingerprint now (one statement, once the dispatcher is idle), remembered as the baseline of the next request.
   * When the app sent no write since the last one, the database is as it was then, and the last one is the answer.
   */
  async fingerprint(): Promise<string> {
    const wrote = this.writes?.take() ?? true;
    if (!wrote && this.lastFingerprint !== null) return this.lastFingerprint;
    await this.settle();
    const rows = await this.testApp.database.raw.$queryRawUnsafe<{ fp: string }[]>(this.fingerprintSql);
    this.lastFingerprint = rows[0].fp;
    return this.lastFingerprint;
  }

  /** The baseline: the fingerprint after the last request, unless the harness wrote since. */
  async baseline(): Promise<string> {
    return this.lastFingerprint ?? this.fingerprint();
  }
}

/** Which tables differ between two fingerprints, and how. */
export function fingerprintDiff(before: string, after: string): string {
  const a = JSON.parse(before) as Record<string, unknown>;
  const b = JSON.parse(after) as Record<string, unknown>;
  return Object.keys({ ...a, ...b })
    .filter((t) => JSON.stringify(a[t]) !== JSON.stringify(b[t]))
    .map((t) => `${t}: ${JSON.stringify(a[t])} -> ${JSON.stringify(b[t])}`)
    .join('; ');
}
