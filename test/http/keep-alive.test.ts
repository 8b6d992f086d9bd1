import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { healthzOn } from '../helpers/http.ts';

// An idle keep-alive connection outlives a load balancer's idle timeout (60 s is common): the server keeps it
// HTTP_KEEP_ALIVE_TIMEOUT_MS (65 s by default; Node's own default, 5 s, reset connections a client or balancer was
// about to reuse). Thirty seconds of waiting and no statement: it runs once, not again on PostgreSQL
// (vitest.config.ts, sameOnEveryDatabase). The setting itself and the drain: test/http/drain.test.ts.

const t = useTestApp();

it('keeps an idle keep-alive connection 30 s: a client that pauses 30 s reuses it without a reset', async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const first = await healthzOn(t.url, agent);
    await sleep(30_000);
    const second = await healthzOn(t.url, agent);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.localPort).toBe(first.localPort);
  } finally {
    agent.destroy();
  }
}, 60_000);
