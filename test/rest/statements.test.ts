import { beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, useTestApp } from '../helpers/app.ts';
import { client, type Client } from '../helpers/http.ts';
import { StatementLog } from '../helpers/statements.ts';

// What the kernel promises about its SQL, read from the statements it issues (startTestApp's onQuery), so that
// it holds on the embedded database too, where transactions never overlap:
// - keyset pagination: a list page is one statement that seeks past the previous page's last (sort value, id)
//   and reads limit + 1 rows; never OFFSET, never COUNT. So page 1000 is the same statement as page 2 with
//   other parameters (the bench measures what that costs);
// - optimistic concurrency: the If-Match comparison is in the WHERE of the one statement that writes, never
//   only a read followed by a write.

const statements = new StatementLog();
const t = useTestApp({ rateLimits: highRateLimits, onQuery: statements.onQuery });
let api: Client;
beforeAll(async () => {
  api = client(t.url, (await t.tenant()).token);
  for (let i = 0; i < 12; i += 1) {
    const res = await api.post('/api/v2/customers', { customer: { organization: `Keyset ${String(i).padStart(2, '0')}` } });
    expect(res.status).toBe(201);
  }
});

/** The statements that read customers while answering one GET. */
async function listStatements(path: string) {
  const { res, sql } = await statements.during(() => api.get(path));
  expect(res.status, res.text).toBe(200);
  return { res, sql: sql.filter((statement) => /\bfrom\s+"?customers"?\b/i.test(statement)) };
}

const nextPath = (link: string | null) => {
  const url = /<([^>]+)>; rel="next"/.exec(link ?? '')?.[1];
  expect(url).toBeTruthy();
  const parsed = new URL(url!, 'http://localhost');
  return `${parsed.pathname}${parsed.search}`;
};

describe('list pages', () => {
  for (const sort of ['organization', '-created_at', 'number']) {
    it(`are keyset queries without OFFSET or COUNT, the same single statement on every page (sort=${sort})`, async () => {
      const first = await listStatements(`/api/v2/customers?limit=4&sort=${sort}`);
      const second = await listStatements(nextPath(first.res.headers.get('link')));
      const third = await listStatements(nextPath(second.res.headers.get('link')));
      for (const page of [first, second, third]) {
        expect(page.sql).toHaveLength(1);
        expect(page.sql[0]).not.toMatch(/\boffset\b/i);
        expect(page.sql[0]).not.toMatch(/\bcount\s*\(/i);
        expect(page.sql[0]).toMatch(/\blimit\s+5\b/i);
      }
      // Continuation pages seek past the last row with a row comparison on (sort column, id).
      expect(first.sql[0]).not.toMatch(/\(\s*\w+\s*,\s*id\s*\)\s*[<>]/i);
      expect(second.sql[0]).toMatch(/\(\s*\w+\s*,\s*id\s*\)\s*[<>]/i);
      expect(third.sql[0]).toBe(second.sql[0]);
      const names = [first, second, third].flatMap((page) => (page.res.body as { data: { id: string }[] }).data.map((c) => c.id));
      expect(new Set(names).size).toBe(12);
    });
  }
});

describe('writes under If-Match', () => {
  /** The statements that write the customers table (UPDATE or DELETE of customers). */
  const writesOf = (sql: string[]) => sql.filter((statement) => /^\s*(update|delete\s+from)\s+("public"\.)?"?customers"?\s/i.test(statement));

  it('compare the ETag and write in one statement: PATCH and DELETE put lock_version and updated_at in the WHERE of their write', async () => {
    const created = await api.post('/api/v2/customers', { customer: { organization: 'Compare and set' } });
    const id = created.body.data.id as string;
    const patch = await statements.during(() => api.patch(`/api/v2/customers/${id}`, { customer: { reference: 'R-1' } }, { headers: { 'if-match': created.headers.get('etag')! } }));
    expect(patch.res.status, patch.res.text).toBe(200);
    const remove = await statements.during(() => api.delete(`/api/v2/customers/${id}`, { headers: { 'if-match': patch.res.headers.get('etag')! } }));
    expect(remove.res.status, remove.res.text).toBe(204);
    for (const { sql } of [patch, remove]) {
      const writes = writesOf(sql);
      expect(writes, sql.join('\n')).toHaveLength(1);
      const where = writes[0].slice(writes[0].search(/\bwhere\b/i));
      expect(where).toMatch(/"?lock_version"?\s*=\s*\$\d+/);
      expect(where).toMatch(/"?updated_at"?\s*=\s*\$\d+/);
      expect(where).toMatch(/"?account_id"?\s*=\s*\$\d+/);
    }
  });
});
