import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, useTenant, useTestApp } from '../helpers/app.ts';
import { ifMatch } from '../helpers/factories/records.ts';
import type { ApiResponse } from '../helpers/http.ts';
import { expectProblem } from '../helpers/problem.ts';
import { startReceiver, type Receiver } from '../helpers/webhook-receivers.ts';

// Webhook endpoint ownership (docs/webhooks.md, states): an endpoint is verified only at a URL that echoed a
// challenge. Every PATCH (status x URL change) from every state (unverified, verified, paused, disabled at a URL
// that echoed, disabled at a URL changed while disabled) is tried against real receivers, and after each the
// endpoint must be verified exactly when its URL echoed, and a test delivery must go out exactly then.

const t = useTestApp({
  rateLimits: { ...highRateLimits, webhook_ingest: 100_000 },
  env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_VERIFY_TIMEOUT_MS: '3000', WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_RETRY_SCHEDULE: '0' },
});
const { api, gql } = useTenant(t);

/** Answers every challenge. */
let echo: Receiver;
/** Answers 200 without the challenge: a URL whose owner never agreed to receive anything. */
let silent: Receiver;
beforeAll(async () => {
  [echo, silent] = await Promise.all([startReceiver({ kind: 'echo' }), startReceiver({ kind: 'status', status: 200, body: 'hello' })]);
});
afterAll(async () => {
  await Promise.all([echo?.close(), silent?.close()]);
});

let urls = 0;
/** A URL of the receiver never used before (receivers answer any path and query). */
function fresh(receiver: Receiver): string {
  urls += 1;
  return `${receiver.url}?n=${urls}`;
}

/** What the silent receiver got besides verification challenges: must stay empty. */
function signedDeliveriesToSilent(): string[] {
  return silent.requests.map((request) => JSON.parse(request.body).type as string).filter((type) => type !== 'webhook_endpoint.verification');
}

function register(url: string) {
  return api.post('/webhooks/endpoints', { endpoint: { url, topics: ['customer.created'] } });
}

function patch(id: string, etag: string, endpoint: Record<string, unknown>) {
  return api.patch(`/webhooks/endpoints/${id}`, { endpoint }, ifMatch(etag));
}

async function read(id: string): Promise<ApiResponse> {
  const res = await api.get(`/webhooks/endpoints/${id}`);
  expect(res.status, res.text).toBe(200);
  return res;
}

type Start = 'unverified' | 'verified' | 'paused' | 'disabled' | 'disabled, URL changed';

/** An endpoint in the start state: its id and ETag. */
async function endpointIn(start: Start): Promise<{ id: string; etag: string }> {
  if (start === 'unverified') {
    const problem = expectProblem(await register(fresh(silent)), { status: 422, code: 'verification.echo_mismatch' });
    const res = await read(problem.endpoint_id);
    return { id: problem.endpoint_id, etag: res.headers.get('etag')! };
  }
  const created = await register(fresh(echo));
  expect(created.status, created.text).toBe(201);
  const id = created.body.data.id as string;
  if (start === 'verified') return { id, etag: created.headers.get('etag')! };
  if (start === 'paused') {
    // What the circuit breaker leaves (src/resources/webhooks/delivery.ts); the delivery counters are not part of the ETag.
    await t.database.prisma.webhookEndpoint.updateMany({ where: { id }, data: { paused_until: new Date(Date.now() + 3_600_000), consecutive_failures: 5, failing_since: new Date() } });
    const res = await read(id);
    expect(res.body.data.paused_until).not.toBeNull();
    return { id, etag: res.headers.get('etag')! };
  }
  const disabling = start === 'disabled' ? { status: 'disabled' } : { status: 'disabled', url: fresh(silent) };
  const disabled = await patch(id, created.headers.get('etag')!, disabling);
  expect(disabled.status, disabled.text).toBe(200);
  expect(disabled.body.data.status).toBe('disabled');
  return { id, etag: disabled.headers.get('etag')! };
}

type Outcome = `200 ${'unverified' | 'verified' | 'disabled'}` | '422 echo_mismatch' | '422 status';
type Row = Record<'same URL' | 'echoing URL' | 'silent URL', Outcome>;
type Grid = Record<'no status' | 'unverified' | 'verified' | 'disabled', Row>;

const allDisabled: Row = { 'same URL': '200 disabled', 'echoing URL': '200 disabled', 'silent URL': '200 disabled' };
const allUnverified: Row = { 'same URL': '200 unverified', 'echoing URL': '200 unverified', 'silent URL': '200 unverified' };
const verifiedGrid: Grid = {
  'no status': { 'same URL': '200 verified', 'echoing URL': '200 verified', 'silent URL': '422 echo_mismatch' },
  unverified: allUnverified,
  verified: { 'same URL': '200 verified', 'echoing URL': '200 verified', 'silent URL': '422 echo_mismatch' },
  disabled: allDisabled,
};

// The expected answer of each PATCH, written out (not computed), by start state, requested status and URL.
const expected: Record<Start, Grid> = {
  unverified: {
    'no status': { 'same URL': '200 unverified', 'echoing URL': '200 verified', 'silent URL': '422 echo_mismatch' },
    unverified: allUnverified,
    verified: { 'same URL': '422 status', 'echoing URL': '422 status', 'silent URL': '422 status' },
    disabled: allDisabled,
  },
  verified: verifiedGrid,
  paused: verifiedGrid,
  disabled: {
    'no status': allDisabled,
    unverified: allUnverified,
    verified: { 'same URL': '200 verified', 'echoing URL': '200 verified', 'silent URL': '422 echo_mismatch' },
    disabled: allDisabled,
  },
  'disabled, URL changed': {
    'no status': allDisabled,
    unverified: allUnverified,
    // The bypass this table closes: re-enabling with verified at a URL that never echoed runs the handshake.
    verified: { 'same URL': '422 echo_mismatch', 'echoing URL': '200 verified', 'silent URL': '422 echo_mismatch' },
    disabled: allDisabled,
  },
};

describe('every PATCH from every state leaves the endpoint verified exactly when its URL echoed a challenge', () => {
  for (const [start, grid] of Object.entries(expected) as [Start, Grid][]) {
    for (const [status, row] of Object.entries(grid) as [keyof Grid, Row][]) {
      for (const [url, outcome] of Object.entries(row) as [keyof Row, Outcome][]) {
        it(`${start} + PATCH ${status}, ${url}: ${outcome}`, async () => {
          const { id, etag } = await endpointIn(start);
          const before = (await read(id)).body.data;
          const body: Record<string, unknown> = {};
          if (status !== 'no status') body.status = status;
          if (url !== 'same URL') body.url = fresh(url === 'echoing URL' ? echo : silent);
          const res = await patch(id, etag, body);
          const after = (await read(id)).body.data;
          const [code, result] = outcome.split(' ') as [string, string];
          if (code === '200') {
            expect(res.status, res.text).toBe(200);
            expect(res.body.data.status).toBe(result);
            expect(after.status).toBe(result);
          } else if (result === 'status') {
            expectProblem(res, { status: 422, code: 'validation.failed', errors: { status: true } });
            expect(after).toEqual(before);
          } else {
            const problem = expectProblem(res, { status: 422, code: `verification.${result}` });
            expect(problem.endpoint_id).toBe(id);
            expect(after.status).toBe('unverified');
          }
          if (body.url && res.status === 200) expect(after.url).toBe(body.url);
          // The breaker: kept while nothing moved, cleared when the endpoint is enabled afresh or moved.
          if (start === 'paused') {
            const untouched = !body.url && (status === 'no status' || status === 'verified');
            expect(after.paused_until === null).toBe(!untouched);
          }
          // A test delivery goes out exactly when the endpoint is verified, and never to a silent URL.
          const sent = await api.post(`/webhooks/endpoints/${id}/test`, {});
          if (after.status === 'verified') {
            expect(sent.status, sent.text).toBe(200);
            expect(after.url.startsWith(echo.url)).toBe(true);
          } else if (after.status === 'disabled') {
            expectProblem(sent, { status: 409, code: 'endpoint.disabled' });
          } else {
            expectProblem(sent, { status: 422, code: 'validation.failed', errors: { status: true } });
          }
          expect(signedDeliveriesToSilent()).toEqual([]);
        });
      }
    }
  }
});

describe('ownership holds against races and every other way in', () => {
  it('the reported bypass: PATCH url with status disabled, then PATCH status verified, runs the handshake and sends nothing', async () => {
    const { id, etag } = await endpointIn('verified');
    const target = fresh(silent);
    const moved = await patch(id, etag, { url: target, status: 'disabled' });
    expect(moved.status, moved.text).toBe(200);
    const problem = expectProblem(await patch(id, moved.headers.get('etag')!, { status: 'verified' }), { status: 422, code: 'verification.echo_mismatch' });
    expect(problem.endpoint_id).toBe(id);
    expect((await read(id)).body.data).toMatchObject({ status: 'unverified', url: target });
    expect((await api.post('/customers', { customer: { organization: 'Bypass Heating' } })).status).toBe(201);
    expectProblem(await api.post(`/webhooks/endpoints/${id}/test`, {}), { status: 422, code: 'validation.failed' });
    expectProblem(await api.post(`/webhooks/endpoints/${id}/replay`, { replay: { since: new Date(Date.now() - 60_000).toISOString() } }), { status: 422, code: 'validation.failed' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(signedDeliveriesToSilent()).toEqual([]);
  });

  it('a handshake that succeeds after the URL moved on verifies nothing: the first PATCH answers 422 verification.failed', async () => {
    const slow = await startReceiver({ kind: 'echo', delayMs: 800 });
    try {
      const { id, etag } = await endpointIn('verified');
      const first = patch(id, etag, { url: fresh(slow) });
      let moved: ApiResponse;
      do moved = await read(id);
      while (!moved.body.data.url.startsWith(slow.url));
      const target = fresh(silent);
      expectProblem(await patch(id, moved.headers.get('etag')!, { url: target }), { status: 422, code: 'verification.echo_mismatch' });
      const problem = expectProblem(await first, { status: 422, code: 'verification.failed' });
      expect(problem.endpoint_id).toBe(id);
      expect((await read(id)).body.data).toMatchObject({ status: 'unverified', url: target });
    } finally {
      await slow.close();
    }
  });

  it('a disable that lands while POST .../verify waits for the echo stays disabled', async () => {
    const slow = await startReceiver({ kind: 'echo', delayMs: 800 });
    try {
      const { id, etag } = await endpointIn('unverified');
      const moved = await patch(id, etag, { url: fresh(slow), status: 'unverified' });
      expect(moved.status, moved.text).toBe(200);
      const verifying = api.post(`/webhooks/endpoints/${id}/verify`, {});
      await slow.waitFor(1);
      const disabled = await patch(id, moved.headers.get('etag')!, { status: 'disabled' });
      expect(disabled.status, disabled.text).toBe(200);
      expectProblem(await verifying, { status: 422, code: 'verification.failed' });
      expect((await read(id)).body.data.status).toBe('disabled');
    } finally {
      await slow.close();
    }
  });

  it('concurrent PATCHes with one ETag: one wins, the other is 412, and no order verifies an unproven URL', async () => {
    for (let round = 0; round < 4; round += 1) {
      const { id, etag } = await endpointIn('disabled');
      const target = fresh(silent);
      const answers = await Promise.all([patch(id, etag, { url: target, status: 'disabled' }), patch(id, etag, { status: 'verified' })]);
      expect(answers.map((res) => res.status).sort()).toEqual([200, 412]);
      const after = (await read(id)).body.data;
      expect(after.status === 'verified' && after.url === target).toBe(false);
      const next = await patch(id, (await read(id)).headers.get('etag')!, { status: 'verified' });
      const final = (await read(id)).body.data;
      if (final.url === target) {
        expectProblem(next, { status: 422, code: 'verification.echo_mismatch' });
        expect(final.status).toBe('unverified');
      } else {
        expect(next.status, next.text).toBe(200);
        expect(final.status).toBe('verified');
      }
    }
    expect(signedDeliveriesToSilent()).toEqual([]);
  });

  it('the database itself refuses a verified endpoint at a URL that did not echo', async () => {
    const { id } = await endpointIn('unverified');
    await expect(t.database.prisma.webhookEndpoint.updateMany({ where: { id }, data: { status: 'verified' } })).rejects.toThrow();
    expect((await read(id)).body.data.status).toBe('unverified');
  });

  it('GraphQL updateWebhookEndpoint follows the same states: re-enabling at a URL changed while disabled runs the handshake', async () => {
    const { id, etag } = await endpointIn('disabled, URL changed');
    const res = await gql(`mutation($id: ID!, $etag: String) { updateWebhookEndpoint(id: $id, ifMatch: $etag, input: { status: VERIFIED }) { webhookEndpoint { status } userErrors { field code message } } }`, { id, etag });
    expect(res.body.data.updateWebhookEndpoint).toMatchObject({ webhookEndpoint: null, userErrors: [{ code: 'verification.echo_mismatch' }] });
    expect((await read(id)).body.data.status).toBe('unverified');
  });
});
