import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { useTenant, useTestApp } from '../helpers/app.ts';

// Bodies are refused from their headers and never drained (src/http/body-guard.ts): a client that declares or sends
// more than BODY_LIMIT_BYTES gets its 413 while it is still sending, and the server closes the connection instead
// of reading the rest. Measured from the client's side over a raw socket: how much it could write before the
// server closed (kernel buffers hold a few MB; a server that drained would take all of it).

const statements: string[] = [];
const t = useTestApp({ onQuery: (sql) => statements.push(sql) });
const { tenant } = useTenant(t);

const CHUNK = Buffer.alloc(64 * 1024, 'a');
/** Far more than kernel buffers can hold, far less than the declared bodies. */
const DRAIN_BOUND = 32 * 1024 * 1024;
/** Where the client gives up writing: a server that drains would let it reach this. */
const GIVE_UP = 200 * 1024 * 1024;

interface Outcome {
  /** The status line and headers the server answered. */
  head: string;
  body: string;
  /** Bytes of body the client wrote before the server closed the connection. */
  written: number;
}

/** Sends the request head, then body bytes until the server closes the connection (or GIVE_UP). */
function sendUntilClosed(head: string, options: { chunked?: boolean } = {}): Promise<Outcome> {
  const { port } = new URL(t.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    let received = '';
    let written = 0;
    let closed = false;
    socket.setEncoding('utf8');
    socket.on('data', (data: string) => (received += data));
    socket.on('error', () => {}); // EPIPE / ECONNRESET once the server has closed: the end of the experiment
    socket.on('close', () => {
      closed = true;
      const [headPart = '', ...rest] = received.split('\r\n\r\n');
      resolve({ head: headPart, body: rest.join('\r\n\r\n'), written });
    });
    socket.on('connect', async () => {
      try {
        socket.write(head);
        while (!closed && !socket.destroyed && written < GIVE_UP) {
          const frame = options.chunked ? Buffer.concat([Buffer.from(`${CHUNK.length.toString(16)}\r\n`), CHUNK, Buffer.from('\r\n')]) : CHUNK;
          written += CHUNK.length;
          if (!socket.write(frame)) await new Promise<void>((go) => {
            socket.once('drain', go);
            socket.once('close', go);
          });
        }
        if (!closed) socket.destroy();
      } catch (error) {
        reject(error);
      }
    });
  });
}

function requestHead(method: string, path: string, headers: Record<string, string>): string {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  return `${lines.join('\r\n')}\r\n\r\n`;
}

function statusOf(outcome: Outcome): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(outcome.head)?.[1]);
}

describe('a body over the limit is refused from its headers and never drained', () => {
  const json = { 'Content-Type': 'application/json' };

  it('REST: a declared 1 GB body answers 413 request.body_too_large while the client is still sending, and the connection closes', async () => {
    const before = statements.length;
    const outcome = await sendUntilClosed(requestHead('POST', '/api/v2/customers', { ...json, Authorization: `Bearer ${tenant.token}`, 'Content-Length': String(1024 ** 3) }));
    expect(statusOf(outcome), `${outcome.written} ${outcome.head}`).toBe(413);
    expect(JSON.parse(outcome.body).code).toBe('request.body_too_large');
    expect(outcome.written).toBeLessThan(DRAIN_BOUND);
    expect(statements.slice(before).filter((sql) => /customers/.test(sql))).toEqual([]);
  });

  it('REST: a chunked body is refused once it passes the limit, and the rest is not read', async () => {
    const outcome = await sendUntilClosed(requestHead('POST', '/api/v2/customers', { ...json, Authorization: `Bearer ${tenant.token}`, 'Transfer-Encoding': 'chunked' }), { chunked: true });
    expect(statusOf(outcome), outcome.head).toBe(413);
    expect(JSON.parse(outcome.body).code).toBe('request.body_too_large');
    expect(outcome.written).toBeLessThan(DRAIN_BOUND);
  });

  it('REST: an unauthenticated oversized body gets its 401 and is not read either', async () => {
    const outcome = await sendUntilClosed(requestHead('POST', '/api/v2/customers', { ...json, 'Content-Length': String(200 * 1024 ** 2) }));
    expect(statusOf(outcome), outcome.head).toBe(401);
    expect(outcome.written).toBeLessThan(DRAIN_BOUND);
  });

  it('GraphQL: a declared 1 GB body and a chunked one are refused with request.body_too_large and not read', async () => {
    const declared = await sendUntilClosed(requestHead('POST', '/graphql', { ...json, Authorization: `Bearer ${tenant.token}`, 'Content-Length': String(1024 ** 3) }));
    expect(statusOf(declared), declared.head).toBe(413);
    expect(declared.body).toContain('request.body_too_large');
    expect(declared.written).toBeLessThan(DRAIN_BOUND);
    const chunked = await sendUntilClosed(requestHead('POST', '/graphql', { ...json, Authorization: `Bearer ${tenant.token}`, 'Transfer-Encoding': 'chunked' }), { chunked: true });
    expect(statusOf(chunked), chunked.head).toBe(413);
    expect(chunked.written).toBeLessThan(DRAIN_BOUND);
  });

  it('a route that reads no body answers, and does not read the body it was sent', async () => {
    const outcome = await sendUntilClosed(requestHead('GET', '/api/v2/me', { ...json, Authorization: `Bearer ${tenant.token}`, 'Content-Length': String(1024 ** 3) }));
    expect(statusOf(outcome), outcome.head).toBe(200);
    expect(outcome.written).toBeLessThan(DRAIN_BOUND);
  });

  it('a body within the limit keeps the connection alive for the next request', async () => {
    const { port } = new URL(t.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    const request = (organization: string) => {
      const body = JSON.stringify({ customer: { organization } });
      return requestHead('POST', '/api/v2/customers', { ...json, Authorization: `Bearer ${tenant.token}`, 'Content-Length': String(Buffer.byteLength(body)) }) + body;
    };
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (data: string) => (received += data));
    const answered = async (n: number) => {
      while ((received.match(/HTTP\/1\.1 \d{3}/g) ?? []).length < n || !received.endsWith('}')) await new Promise((resolve) => setTimeout(resolve, 10));
    };
    socket.write(request('Keep Alive Heating'));
    await answered(1);
    socket.write(request('Keep Alive Plumbing'));
    await answered(2);
    socket.destroy();
    expect(received.match(/HTTP\/1\.1 (\d{3})/g)).toEqual(['HTTP/1.1 201', 'HTTP/1.1 201']);
    expect(received.toLowerCase()).not.toContain('connection: close');
  });
});
