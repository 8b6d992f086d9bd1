import http from 'node:http';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { freshDatabase } from '../helpers/database.ts';

// Keep-alive and the drain of a stopping server (src/app.ts listen and close; docs/operations.md, Stopping):
// an idle connection outlives a load balancer's idle timeout; on close no new connection is accepted, the
// requests in flight are answered (each answer closes its connection), WebSockets are closed with 1001, and
// what was drained is reported.

/** Sends a raw HTTP/1.1 request over its own socket, `body` in two halves with `between` run in the middle. */
async function halves(app: TestApp, token: string, body: string, between: () => Promise<void>): Promise<{ status: number; head: string; socket: net.Socket }> {
  const socket = net.connect(Number(new URL(app.url).port), '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  let received = '';
  socket.on('data', (chunk) => (received += chunk));
  const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const bytes = Buffer.from(body);
  socket.write(`POST /api/v2/customers HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${bytes.length}\r\n\r\n`);
  socket.write(bytes.subarray(0, 10));
  await between();
  socket.write(bytes.subarray(10));
  await ended;
  const head = received.split('\r\n\r\n')[0];
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), head, socket };
}

/** GET /healthz on an agent's socket: the status and the local port it went out of. */
function get(url: string, agent: http.Agent): Promise<{ status: number; localPort: number }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${url}/healthz`, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, localPort: req.socket!.localPort! }));
    });
    req.on('error', reject);
  });
}

const opened: TestApp[] = [];
afterAll(async () => {
  for (const app of opened) await app.close();
});

describe.concurrent('keep-alive and the drain', () => {
  it('keeps an idle keep-alive connection 30 s: a client that pauses 30 s reuses it without a reset', async () => {
    const app = await startTestApp();
    opened.push(app);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await get(app.url, agent);
      await sleep(30_000);
      const second = await get(app.url, agent);
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(second.localPort).toBe(first.localPort);
    } finally {
      agent.destroy();
    }
  }, 60_000);

  it('closes an idle connection after HTTP_KEEP_ALIVE_TIMEOUT_MS', async () => {
    const app = await startTestApp({ env: { HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000' } });
    opened.push(app);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await get(app.url, agent);
      await sleep(1_500);
      // The server closed the idle socket: the agent opens a new one.
      const second = await get(app.url, agent);
      expect(second.status).toBe(200);
      expect(second.localPort).not.toBe(first.localPort);
    } finally {
      agent.destroy();
    }
  });

  it('refuses a request timeout shorter than the keep-alive timeout at start', () => {
    expect(() => loadConfig({ HTTP_KEEP_ALIVE_TIMEOUT_MS: '65000', HTTP_REQUEST_TIMEOUT_MS: '5000' })).toThrow(/HTTP_REQUEST_TIMEOUT_MS: must be at least HTTP_KEEP_ALIVE_TIMEOUT_MS/);
  });

  it('on close stops accepting connections, answers the request in flight and keeps its write, closes WebSockets with 1001, and reports what it drained', async () => {
    const database = await freshDatabase();
    const app = await startTestApp({ database });
    const tenant = await app.tenant();
    const port = Number(new URL(app.url).port);
    const socket = new WebSocket(`${app.url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
    const wsClosed = new Promise<{ code: number; reason: string }>((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
    await new Promise<void>((resolve) => socket.once('open', () => resolve()));
    let closing: ReturnType<TestApp['app']['close']> | undefined;
    try {
      const answer = await halves(app, tenant.token, JSON.stringify({ customer: { organization: 'Drained Heating Co' } }), async () => {
        await sleep(200);
        closing = app.app.close();
        await sleep(200);
        // No new connection once the drain began.
        const refused = await new Promise<string>((resolve) => {
          const probe = net.connect(port, '127.0.0.1');
          probe.once('connect', () => (probe.destroy(), resolve('connected')));
          probe.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
        });
        expect(refused).toBe('ECONNREFUSED');
      });
      expect(answer.status, answer.head).toBe(201);
      expect(answer.head).toMatch(/^Connection: close$/im);
      expect(await wsClosed).toEqual({ code: 1001, reason: 'Server shutting down' });
      expect(await closing).toEqual({ requests: 1, cut: 0, websockets: 1, deliveries: 0 });
      const rows = await database.raw.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*) AS n FROM customers WHERE organization = 'Drained Heating Co'`);
      expect(Number(rows[0].n)).toBe(1);
    } finally {
      await closing;
      await app.close();
      await database.close();
    }
  });

  it('on close cuts a request still arriving at the deadline (SHUTDOWN_TIMEOUT_MS) and says so', async () => {
    const app = await startTestApp({ env: { SHUTDOWN_TIMEOUT_MS: '300' } });
    const tenant = await app.tenant();
    let drained: Awaited<ReturnType<TestApp['app']['close']>> | undefined;
    const answer = await halves(app, tenant.token, JSON.stringify({ customer: { organization: 'Never Finished' } }), async () => {
      await sleep(100);
      drained = await app.app.close();
    });
    expect(answer.status).toBeNaN();
    expect(drained).toEqual({ requests: 1, cut: 1, websockets: 0, deliveries: 0 });
    await app.close();
  });
});
