import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface BenchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** Creates fl_bench_<random> on the server of serverUrl; drop() removes it (idempotent, forces other sessions off). */
export async function createBenchDatabase(serverUrl: string): Promise<BenchDatabase> {
  const name = `fl_bench_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    name,
    url: url.toString(),
    async drop() {
      if (dropped) return;
      dropped = true;
      const dropper = new pg.Client({ connectionString: serverUrl });
      await dropper.connect();
      try {
        await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await dropper.end();
      }
    },
  };
}

const surnames = [
  'Abbott', 'Ashford', 'Barlow', 'Bennett', 'Blackwood', 'Bradley', 'Brennan', 'Carver', 'Chandler', 'Clarke',
  'Colton', 'Crawford', 'Dalton', 'Donovan', 'Ellison', 'Fairfax', 'Fletcher', 'Foster', 'Garrison', 'Gordon',
  'Hale', 'Harper', 'Hartley', 'Hawthorne', 'Holloway', 'Irvine', 'Jarvis', 'Keller', 'Kingsley', 'Lambert',
  'Langley', 'Lockwood', 'Marsh', 'Merritt', 'Morrison', 'Nash', 'Norwood', 'Oakley', 'Parker', 'Pembroke',
  'Prescott', 'Quinn', 'Radcliffe', 'Reeves', 'Rowland', 'Sawyer', 'Sheldon', 'Sinclair', 'Stafford', 'Sterling',
  'Thornton', 'Underwood', 'Vaughn', 'Wakefield', 'Walsh', 'Whitaker', 'Winslow', 'Wyatt', 'Yardley', 'Zimmerman',
];
const trades = [
  'Plumbing', 'Heating', 'Electrical', 'Roofing', 'Landscaping', 'Cleaning', 'Pest Control', 'HVAC', 'Glazing', 'Joinery',
  'Flooring', 'Painting', 'Decorating', 'Security', 'Fire Safety', 'Lifts', 'Drainage', 'Solar', 'Insulation', 'Scaffolding',
  'Bakery', 'Dental', 'Veterinary', 'Pharmacy', 'Hotel', 'Restaurant', 'Brewery', 'Logistics', 'Storage', 'Printing',
  'Motors', 'Garage', 'Laundry', 'Fitness', 'Clinic', 'Nursery', 'Academy', 'Library', 'Estates', 'Lettings',
  'Foods', 'Textiles', 'Engineering', 'Fabrication', 'Packaging', 'Farms', 'Marine', 'Aviation', 'Data Centre', 'Retail',
];
const cities = [
  'Aberdeen', 'Bath', 'Belfast', 'Birmingham', 'Bradford', 'Brighton', 'Bristol', 'Cambridge', 'Cardiff', 'Carlisle',
  'Chester', 'Coventry', 'Derby', 'Dundee', 'Durham', 'Edinburgh', 'Exeter', 'Glasgow', 'Gloucester', 'Hull',
  'Inverness', 'Lancaster', 'Leeds', 'Leicester', 'Lincoln', 'Liverpool', 'London', 'Manchester', 'Newcastle', 'Norwich',
  'Nottingham', 'Oxford', 'Plymouth', 'Portsmouth', 'Preston', 'Sheffield', 'Southampton', 'Swansea', 'Worcester', 'York',
];
const forms = [' Ltd', ' LLC', ' & Sons', ' Group', ' Co', ' Services', '', ' Inc'];
const regions = ['North', 'South', 'East', 'West', 'Central'];

export const SEED = {
  /** Rows inserted; every 101st is soft-deleted, leaving LIVE live customers. */
  rows: 101_000,
  live: 100_000,
  /** One customer every ~10 minutes, newest about now. */
  stepMs: 600_000,
  /** (city, surname, trade) combinations: 40 * 60 * 50; a row takes combination (g * 7919) mod COMBOS, a bijection. */
  combos: 120_000,
};

/**
 * Inserts the customers in one INSERT ... SELECT generate_series. Organizations are "<City> <Surname> <Trade><form>"
 * (unique, so the case-insensitive unique index holds); numbers 1..rows; statuses 80% Active / 15% Inactive / 5% On hold;
 * references "PO-nnnnnn" on half; phones, websites, descriptions, labels and a custom field on a share of rows;
 * created_at strictly increasing (distinct), id a UUID v7 whose timestamp is created_at's millisecond (so id order
 * follows created_at order); updated_at at or after created_at; lock_version 0..2; 1% soft-deleted.
 */
export async function seedCustomers(
  client: pg.Client,
  input: { accountId: string; assigneeId: number; regionFieldId: string },
): Promise<void> {
  const newestMs = Date.now() - 60_000;
  const firstMs = newestMs - SEED.rows * SEED.stepMs;
  await client.query(
    `
    INSERT INTO customers (id, account_id, number, organization, main_phone, fax, website, description, reference, assignee_id,
                           customer_notes, status, labels, custom_fields, lock_version, created_at, updated_at, deleted_at)
    SELECT
      (substr(x.ts_hex, 1, 8) || '-' || substr(x.ts_hex, 9, 4) || '-7' || substr(x.r, 1, 3) || '-' ||
       substr('89ab', (g % 4) + 1, 1) || substr(x.r, 4, 3) || '-' || substr(x.r, 7, 12))::uuid,
      $1::uuid,
      g::text,
      n.city || ' ' || n.surname || ' ' || n.trade || n.form,
      CASE WHEN g % 5 <> 0 THEN '+44 ' || lpad(((g::bigint * 104729) % 10000000000)::text, 10, '0') END,
      CASE WHEN g % 17 = 0 THEN '+44 ' || lpad(((g::bigint * 15485863) % 10000000000)::text, 10, '0') END,
      CASE WHEN g % 3 = 0 THEN 'https://www.' || lower(n.surname) || '-' || lower(replace(n.trade, ' ', '')) || '-' || g || '.example.com' END,
      CASE WHEN g % 4 = 0 THEN n.trade || ' customer in ' || n.city || '; prefers morning visits, call ahead.' END,
      CASE WHEN g % 2 = 0 THEN 'PO-' || lpad(((g::bigint * 7907) % 1000000)::text, 6, '0') END,
      CASE WHEN g % 3 = 0 THEN $2::bigint END,
      CASE WHEN g % 10 = 0 THEN '<p>Key safe by the side door. Invoice to head office, PO required.</p>' END,
      CASE WHEN g % 20 < 16 THEN 'Active' WHEN g % 20 < 19 THEN 'Inactive' ELSE 'On hold' END,
      CASE g % 6 WHEN 0 THEN ARRAY['VIP'] WHEN 1 THEN ARRAY['Commercial'] WHEN 2 THEN ARRAY['Residential', 'VIP'] ELSE ARRAY[]::text[] END,
      CASE WHEN g % 4 = 0 THEN jsonb_build_object($3::text, ($8::text[])[(g % 5) + 1]) ELSE '{}'::jsonb END,
      g % 3,
      x.created_at,
      least(x.created_at + ((g::bigint * 7919) % 2592000000) * interval '1 millisecond', now()),
      CASE WHEN g % 101 = 0 THEN x.created_at + interval '1 day' END
    FROM generate_series(1, $9::int) AS g
    CROSS JOIN LATERAL (
      SELECT $4::bigint + g::bigint * $10::bigint + (g::bigint * 7919) % ($10::bigint - 1000) AS ms,
             md5('fieldline-bench-' || g) AS r,
             (g::bigint * 7919) % $11::bigint AS i
    ) AS t
    CROSS JOIN LATERAL (
      SELECT lpad(to_hex(t.ms), 12, '0') AS ts_hex, t.r, timestamptz 'epoch' + t.ms * interval '1 millisecond' AS created_at
    ) AS x
    CROSS JOIN LATERAL (
      SELECT ($5::text[])[(t.i % 60) + 1] AS surname,
             ($6::text[])[((t.i / 60) % 50) + 1] AS trade,
             ($7::text[])[((t.i / 3000) % 40) + 1] AS city,
             ($12::text[])[(g % 8) + 1] AS form
    ) AS n
    `,
    [
      input.accountId, input.assigneeId, input.regionFieldId, firstMs, surnames, trades, cities, regions,
      SEED.rows, SEED.stepMs, SEED.combos, forms,
    ],
  );
  await client.query(
    `INSERT INTO number_sequences (account_id, resource, last_value) VALUES ($1::uuid, 'Customer', $2)
     ON CONFLICT (account_id, resource) DO UPDATE SET last_value = GREATEST(number_sequences.last_value, EXCLUDED.last_value)`,
    [input.accountId, SEED.rows],
  );
}
