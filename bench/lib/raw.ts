import net from 'node:net';
import { quantile } from './stats.ts';
import type { Target } from './http.ts';

// A minimal keep-alive HTTP/1.1 GET client over raw sockets, cheap enough per request to share two cores with the
// servers under test (node:http's client costs several times more CPU per request, which distorted the open loop).
// Responses must carry Content-Length (both servers under test send it).

interface Pending {
  request: Buffer;
  scheduled: number;
  resolve: (result: { status: number; ms: number; body?: string }) => void;
  reject: (error: Error) => void;
  /** Decode the body for the caller (RawPool.request); a GET of RawPool.get reads the status only. */
  body?: boolean;
}

class Connection {
  private chunks: Buffer[] = [];
  private received = 0;
  private current: Pending | null = null;
  dead = false;
  readonly socket: net.Socket;
  readonly ready: Promise<void>;

  constructor(
    target: Target,
    private readonly onIdle: (connection: Connection) => void,
    private readonly onDead: (connection: Connection) => void,
  ) {
    this.socket = net.connect({ host: target.host, port: target.port, noDelay: true });
    this.ready = new Promise((resolve, reject) => {
      this.socket.once('connect', resolve);
      this.socket.once('error', reject);
    });
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('error', (error) => this.die(error));
    // Servers close idle keep-alive connections (node's default keepAliveTimeout is 5 s).
    this.socket.on('close', () => this.die(new Error('connection closed by the server')));
  }

  send(pending: Pending): void {
    this.current = pending;
    this.socket.write(pending.request);
  }

  private die(error: Error): void {
    if (this.dead) return;
    this.dead = true;
    this.socket.destroy();
    const current = this.current;
    this.current = null;
    current?.reject(error);
    this.onDead(this);
  }

  private onData(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.received += chunk.length;
    const data = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    this.chunks = [data];
    const headerEnd = data.indexOf('\r\n\r\n');
    if (headerEnd < 0) return;
    const head = data.toString('latin1', 0, headerEnd);
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    if (!length) return this.die(new Error(`response without Content-Length: ${head.slice(0, 200)}`));
    const total = headerEnd + 4 + Number(length[1]);
    if (this.received < total) return;
    if (this.received > total) return this.die(new Error('unexpected bytes after a response'));
    this.chunks = [];
    this.received = 0;
    const current = this.current;
    this.current = null;
    const elapsed = current ? performance.now() - current.scheduled : 0;
    current?.resolve({ status: Number(head.slice(9, 12)), ms: elapsed, ...(current.body ? { body: data.toString('utf8', headerEnd + 4, total) } : {}) });
    this.onIdle(this);
  }

  close(): void {
    this.dead = true;
    this.socket.removeAllListeners('close');
    this.socket.destroy();
  }
}

/**
 * `size` keep-alive connections used in turn (FIFO, so none idles long enough for the server to close it; one that
 * is closed anyway is replaced). Requests beyond the idle connections wait in a FIFO queue, and that wait counts.
 */
export class RawPool {
  private readonly connections = new Set<Connection>();
  private readonly idle: Connection[] = [];
  private readonly queue: Pending[] = [];
  private closed = false;

  private constructor(private readonly target: Target) {}

  static async open(target: Target, size: number): Promise<RawPool> {
    const pool = new RawPool(target);
    await Promise.all(Array.from({ length: size }, () => pool.add()));
    return pool;
  }

  private async add(): Promise<void> {
    const connection = new Connection(this.target, (c) => this.release(c), (c) => this.replace(c));
    this.connections.add(connection);
    await connection.ready;
    this.release(connection);
  }

  private replace(connection: Connection): void {
    this.connections.delete(connection);
    const at = this.idle.indexOf(connection);
    if (at >= 0) this.idle.splice(at, 1);
    if (this.closed) return;
    this.add().catch((error: Error) => {
      for (const pending of this.queue.splice(0)) pending.reject(error);
    });
  }

  requestBuffer(path: string): Buffer {
    const headers = Object.entries(this.target.headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    return Buffer.from(`GET ${path} HTTP/1.1\r\nHost: ${this.target.host}:${this.target.port}\r\n${headers}\r\n`, 'latin1');
  }

  /** Resolves with the status and the time from `scheduled` (default: now) to the last byte. */
  get(request: Buffer, scheduled = performance.now()): Promise<{ status: number; ms: number }> {
    return new Promise((resolve, reject) => {
      const pending: Pending = { request, scheduled, resolve, reject };
      const connection = this.idle.shift();
      if (connection) connection.send(pending);
      else this.queue.push(pending);
    });
  }

  /** Any request's bytes (a POST with its body); resolves with the status, the time to the last byte and the body. */
  request(request: Buffer): Promise<{ status: number; ms: number; body: string }> {
    return new Promise((resolve, reject) => {
      const pending: Pending = { request, scheduled: performance.now(), resolve: (r) => resolve({ ...r, body: r.body ?? '' }), reject, body: true };
      const connection = this.idle.shift();
      if (connection) connection.send(pending);
      else this.queue.push(pending);
    });
  }

  private release(connection: Connection): void {
    if (connection.dead) return;
    const next = this.queue.shift();
    if (next) connection.send(next);
    else this.idle.push(connection);
  }

  close(): void {
    this.closed = true;
    for (const connection of this.connections) connection.close();
    for (const pending of this.queue.splice(0)) pending.reject(new Error('pool closed'));
  }
}

export interface Sample {
  n: number;
  p50: number;
  p99: number;
}

/**
 * Alternates the given paths one request at a time on one connection, `rounds` times each, so drift of the machine
 * hits every path alike. Every answer must be 200.
 */
export async function sequential(target: Target, paths: string[], rounds: number): Promise<Sample[]> {
  const pool = await RawPool.open(target, 1);
  const requests = paths.map((p) => pool.requestBuffer(p));
  const times = paths.map(() => [] as number[]);
  try {
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < paths.length; i++) {
        const reply = await pool.get(requests[i]);
        if (reply.status !== 200) throw new Error(`${target.name} GET ${paths[i]} answered ${reply.status}`);
        times[i].push(reply.ms);
      }
    }
  } finally {
    pool.close();
  }
  return times.map((t) => ({ n: t.length, p50: quantile(t, 0.5), p99: quantile(t, 0.99) }));
}

export interface OpenLoopResult {
  rate: number;
  sent: number;
  ok: number;
  failed: number;
  achieved: number;
  p50: number;
  p99: number;
  /** How late requests were handed to the pool compared with their schedule (the generator's own health). */
  lagP99: number;
}

/**
 * Open loop: requests (a GET of `path`, or the given request bytes) are issued on a fixed schedule (ratePerSecond) whatever the server does, over `connections`
 * pre-opened keep-alive connections; when all are busy a request waits in the client's queue. Latency runs from the
 * scheduled time to the last byte, so queueing and a late dispatch by this generator count against the server,
 * never in its favour (no coordinated omission).
 */
export async function openLoop(target: Target, path: string | Buffer, ratePerSecond: number, seconds: number, connections: number): Promise<OpenLoopResult> {
  const pool = await RawPool.open(target, connections);
  const request = typeof path === 'string' ? pool.requestBuffer(path) : path;
  const total = Math.max(1, Math.round(ratePerSecond * seconds));
  const interval = 1000 / ratePerSecond;
  const latencies: number[] = [];
  const lags: number[] = [];
  let ok = 0;
  let failed = 0;
  let done = 0;
  let sent = 0;
  const started = performance.now();
  const finished = new Promise<void>((resolve, reject) => {
    const deadline = setTimeout(
      () => reject(new Error(`${target.name}: open loop still waiting for ${total - done} of ${total} answers ${seconds + 30} s after it started`)),
      (seconds + 30) * 1000,
    );
    const finish = () => {
      done += 1;
      if (done === total) {
        clearTimeout(deadline);
        resolve();
      }
    };
    const tick = () => {
      const now = performance.now();
      while (sent < total && started + sent * interval <= now) {
        const scheduled = started + sent * interval;
        lags.push(now - scheduled);
        pool.get(request, scheduled).then(
          (reply) => {
            if (reply.status === 200) {
              ok += 1;
              latencies.push(reply.ms);
            } else failed += 1;
            finish();
          },
          () => {
            failed += 1;
            finish();
          },
        );
        sent += 1;
      }
      if (sent < total) setTimeout(tick, Math.max(0, started + sent * interval - performance.now()));
    };
    tick();
  });
  try {
    await finished;
  } finally {
    pool.close();
  }
  const elapsed = (performance.now() - started) / 1000;
  return {
    rate: ratePerSecond,
    sent,
    ok,
    failed,
    achieved: ok / elapsed,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    lagP99: quantile(lags, 0.99),
  };
}
