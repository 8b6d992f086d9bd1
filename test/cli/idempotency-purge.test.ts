import { describe, expect, it } from 'vitest';
import { TestClock, useTenant, useTestApp } from '../helpers/app.ts';
import { cliOn } from '../helpers/cli.ts';
import { createCustomer } from '../helpers/factories/customers.ts';

// fieldline idempotency-keys purge: deletes the keys past their 24-hour replay window now (every server also does
// it hourly, src/app.ts). Keys are written by an app whose clock is two days behind, so they are already expired
// for the command, which reads the real time; a key still in its window is kept.

const clock = new TestClock();
const t = useTestApp({ clock });
const { api } = useTenant(t);

describe('fieldline idempotency-keys purge', () => {
  it('deletes the expired keys and keeps the others, reporting how many it deleted', async () => {
    const customer = await createCustomer(api);
    const invoice = (key: string) => api.post('/invoices', { invoice: { customer_id: customer.id } }, { headers: { 'idempotency-key': key } });
    const cli = cliOn(t.database);
    clock.pin(new Date(Date.now() - 48 * 3600_000).toISOString());
    expect((await invoice('old-key-1')).status).toBe(201);
    expect((await invoice('old-key-2')).status).toBe(201);
    clock.release();
    const recent = await invoice('recent-key');
    expect(recent.status).toBe(201);

    const run = await cli('idempotency-keys', 'purge', '--json');
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.json).toEqual({ purged: 2 });
    expect((await cli('idempotency-keys', 'purge')).stdout).toBe('Purged 0 expired idempotency keys.\n');
    // The key in its window still replays.
    const again = await invoice('recent-key');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.text).toBe(recent.text);
  });
});
