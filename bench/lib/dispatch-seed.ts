import type pg from 'pg';
import type { App } from '../../src/app.ts';

// The dispatch board data set, shared by bench/dispatch-board.bench.ts and bench/graphql-limits.bench.ts: one
// account with 10 technicians (made through the app's admin service), then plain SQL for 2,000 customers (one site
// and one primary contact each) and 10,000 Scheduled jobs spread evenly over 10 weeks, each with one or two
// assignees and two or three lines.

export const DISPATCH = {
  jobs: 10_000,
  customers: 2_000,
  techs: 10,
} as const;

const DAY = 86_400_000;
/** Jobs are spread evenly over 10 weeks from this instant: one week holds 1,000 of them. */
const FIRST = Date.parse('2031-01-06T00:00:00.000Z');

/** The board's week: 1,000 of the 10,000 jobs. */
export const WINDOW = { from: new Date(FIRST + 21 * DAY).toISOString(), to: new Date(FIRST + 28 * DAY).toISOString() };

/** The board document: up to 1,000 jobs with customer, site, contact, assignees and lines (variables: WINDOW). */
export const BOARD = `query Board($from: DateTime!, $to: DateTime!) { dispatchBoard(from: $from, to: $to, limit: 1000) { hasMore jobs {
  id number status title scheduledStart scheduledEnd amount
  customer { id organization } site { id siteName street city state zipCode } contact { id firstName lastName mobile }
  assignees { nodes { id name email role } }
  lineitems { nodes { id description quantity unitPrice discount lineTotal taxAmount } } } } }`;

export interface DispatchAccount {
  accountId: string;
  /** Bearer token of the account's API key. */
  token: string;
  userIds: number[];
}

/** The account and its technicians, through the app's admin service. */
export async function createDispatchAccount(admin: App['domain']['admin']): Promise<DispatchAccount> {
  const created = await admin.createAccount({ name: 'Dispatch Bench Ltd' });
  const accountId = created.account.id;
  const userIds: number[] = [];
  for (let i = 0; i < DISPATCH.techs; i++) {
    userIds.push((await admin.createUser({ accountId, name: `Tech ${i}`, email: `tech${i}@bench.invalid`, role: 'technician' })).id);
  }
  return { accountId, token: created.key.token, userIds };
}

/** Customers, sites, contacts, jobs, assignments and lines in plain SQL, then VACUUM ANALYZE. */
export async function seedDispatch(client: pg.Client, accountId: string, userIds: number[]): Promise<void> {
  const { jobs: JOBS, customers: CUSTOMERS } = DISPATCH;
  await client.query(
    `INSERT INTO customers (id, account_id, number, organization, status, created_at, updated_at)
     SELECT gen_random_uuid(), $1::uuid, g::text, 'Dispatch Customer ' || g, 'Active', now(), now() FROM generate_series(1, $2::int) g`,
    [accountId, CUSTOMERS],
  );
  await client.query(
    `INSERT INTO sites (id, account_id, siteable_type, siteable_id, customer_id, site_name, street, city, state, zip_code, position, created_at, updated_at)
     SELECT gen_random_uuid(), $1::uuid, 'Customer', c.id, c.id, 'Site of ' || c.organization, c.number || ' Main St', 'Springfield', 'IL', '62701', 0, now(), now()
     FROM customers c WHERE c.account_id = $1::uuid`,
    [accountId],
  );
  await client.query(
    `WITH made AS (
       INSERT INTO contacts (id, account_id, first_name, last_name, mobile, linkable_type, linkable_id, created_at, updated_at)
       SELECT gen_random_uuid(), $1::uuid, 'Pat', 'Contact ' || c.number, '+1 555 ' || c.number, 'Customer', c.id, now(), now()
       FROM customers c WHERE c.account_id = $1::uuid RETURNING id, linkable_id)
     INSERT INTO contact_linkages (id, account_id, contact_id, linkable_type, linkable_id, is_primary, created_at, updated_at)
     SELECT gen_random_uuid(), $1::uuid, m.id, 'Customer', m.linkable_id, true, now(), now() FROM made m`,
    [accountId],
  );
  // Job g belongs to customer (g mod CUSTOMERS), starts at FIRST + g * 70 days / JOBS, lasts 2 hours.
  await client.query(
    `INSERT INTO jobs (id, account_id, number, status, customer_id, site_id, contact_id, title, scheduled_start, scheduled_end, amount, created_at, updated_at)
     SELECT gen_random_uuid(), $1::uuid, g::text, 'Scheduled', c.id, s.id, ct.id, 'Service visit ' || g,
            to_timestamp(($3::bigint + g::bigint * $4::bigint) / 1000.0), to_timestamp(($3::bigint + g::bigint * $4::bigint + 7200000) / 1000.0), 0, now(), now()
     FROM generate_series(0, $2::int - 1) g
     JOIN LATERAL (SELECT id FROM customers WHERE account_id = $1::uuid AND number = ((g % $5::int) + 1)::text) c ON true
     JOIN sites s ON s.customer_id = c.id
     JOIN contacts ct ON ct.linkable_id = c.id`,
    [accountId, JOBS, FIRST, Math.floor((70 * DAY) / JOBS), CUSTOMERS],
  );
  await client.query(
    `INSERT INTO job_assignments (id, account_id, job_id, user_id, position, created_at, updated_at)
     SELECT gen_random_uuid(), $1::uuid, j.id, ($2::bigint[])[((j.number::int + k) % $3::int) + 1], k, now(), now()
     FROM jobs j CROSS JOIN generate_series(0, 1) k WHERE j.account_id = $1::uuid AND (k = 0 OR j.number::int % 2 = 0)`,
    [accountId, userIds, userIds.length],
  );
  await client.query(
    `INSERT INTO lineitems (id, account_id, job_id, position, description, quantity, unit_price, discount, taxable, labor_visible,
                            discount_amount, tax_amount, line_total, tax_applied, created_at, updated_at)
     SELECT gen_random_uuid(), $1::uuid, j.id, k, 'Line ' || k, 1 + k, 25.5, 0, false, true, 0, 0, (1 + k) * 25.5, false, now(), now()
     FROM jobs j CROSS JOIN generate_series(0, 2) k WHERE j.account_id = $1::uuid AND (k < 2 OR j.number::int % 2 = 1)`,
    [accountId],
  );
  await client.query(`UPDATE jobs j SET amount = (SELECT sum(line_total) FROM lineitems l WHERE l.job_id = j.id) WHERE j.account_id = $1::uuid`, [accountId]);
  await client.query(
    `INSERT INTO number_sequences (account_id, resource, last_value) VALUES ($1::uuid, 'Customer', $2), ($1::uuid, 'Job', $3)
     ON CONFLICT (account_id, resource) DO UPDATE SET last_value = GREATEST(number_sequences.last_value, EXCLUDED.last_value)`,
    [accountId, CUSTOMERS, JOBS],
  );
  await client.query('VACUUM ANALYZE');
}
