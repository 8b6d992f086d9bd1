import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

// Partner endpoints for black-box webhook tests: real servers on 127.0.0.1 (ephemeral ports) that record every
// request and answer as told, so verification, delivery, retries, timeouts and TLS failures are exercised over
// real sockets. The server under test needs WEBHOOK_ALLOW_PRIVATE_NETWORKS to reach them.

export interface ReceivedRequest {
  method: string;
  path: string;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: string;
  receivedAt: number;
}

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** resolves when at least n requests arrived (rejects after timeoutMs, default 10000) */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
  /** replace the behaviour at runtime */
  setBehaviour(b: Behaviour): void;
}

export type Behaviour =
  | { kind: 'echo'; delayMs?: number } // 2xx; answers the JSON body's "challenge" verbatim as text/plain body when present, else 204 (verification + deliveries), after delayMs
  | { kind: 'echo-json' } // answers {"challenge": "<challenge>"} as application/json (204 when there is none)
  | { kind: 'status'; status: number; body?: string } // e.g. 500, 410, or 200 with a wrong body
  | { kind: 'hang' } // accepts the connection, never answers (keeps socket open until close())
  | { kind: 'fail-then-recover'; failures: number; status?: number }; // first N requests answer `status` (default 500), then behaves like 'echo'

/** The path receivers are reached on: a non-root path shows the sender keeps the registered path. */
const RECEIVER_PATH = '/webhook';

export function startReceiver(behaviour: Behaviour): Promise<Receiver> {
  return start(http.createServer(), 'http', behaviour);
}

/**
 * An HTTPS receiver with a self-signed certificate (made once per process with the openssl CLI into a temp
 * dir), behaving like startReceiver. A sender that validates certificates, as it must, fails to reach it: this
 * is the receiver for "certificate problems are reported as TLS failures".
 */
export async function startHttpsReceiver(behaviour: Behaviour): Promise<Receiver> {
  const { key, cert } = await selfSignedCertificate();
  return start(https.createServer({ key, cert }), 'https', behaviour);
}

/** A URL on 127.0.0.1 whose port is closed (bind a server to port 0, read the port, close it). */
export async function closedPortUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}${RECEIVER_PATH}`;
}

async function start(server: http.Server | https.Server, scheme: 'http' | 'https', initial: Behaviour): Promise<Receiver> {
  let behaviour = initial;
  // fail-then-recover counts the requests since its behaviour was set, so setBehaviour starts it afresh.
  let answeredUnderBehaviour = 0;
  const requests: ReceivedRequest[] = [];
  const waiters = new Set<() => void>();
  // 'hang' keeps sockets open on purpose; close() must destroy them or server.close() (and vitest) waits forever.
  const sockets = new Set<Socket>();

  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // A client that gives up mid-request (timeouts are the point of some tests) must not crash the test process.
  server.on('clientError', (_error, socket) => socket.destroy());
  server.on('tlsClientError', () => {});

  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', () => {});
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      }
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers, body, receivedAt: Date.now() });
      for (const check of [...waiters]) check();
      answer(behaviour, answeredUnderBehaviour++, body, res);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  let closed: Promise<void> | null = null;
  return {
    url: `${scheme}://127.0.0.1:${port}${RECEIVER_PATH}`,
    requests,
    waitFor(n: number, timeoutMs = 10_000): Promise<ReceivedRequest[]> {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (requests.length < n) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve([...requests]);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the receiver got ${requests.length} request(s) within ${timeoutMs} ms, expected at least ${n}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close(): Promise<void> {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        server.closeAllConnections();
      });
      return closed;
    },
    setBehaviour(b: Behaviour): void {
      behaviour = b;
      answeredUnderBehaviour = 0;
    },
  };
}

function answer(behaviour: Behaviour, index: number, body: string, res: http.ServerResponse): void {
  switch (behaviour.kind) {
    case 'hang':
      return;
    case 'status':
      res.writeHead(behaviour.status, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(behaviour.body ?? '');
      return;
    case 'fail-then-recover':
      if (index < behaviour.failures) {
        res.writeHead(behaviour.status ?? 500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('not yet');
        return;
      }
      return answerEcho(body, res, 'text');
    case 'echo':
      if (behaviour.delayMs) {
        setTimeout(() => answerEcho(body, res, 'text'), behaviour.delayMs);
        return;
      }
      return answerEcho(body, res, 'text');
    case 'echo-json':
      return answerEcho(body, res, 'json');
  }
}

function answerEcho(body: string, res: http.ServerResponse, as: 'text' | 'json'): void {
  const challenge = challengeOf(body);
  if (challenge === null) {
    res.writeHead(204);
    res.end();
  } else if (as === 'text') {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(challenge);
  } else {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ challenge }));
  }
}

function challengeOf(body: string): string | null {
  try {
    const parsed = JSON.parse(body) as unknown;
    if (parsed && typeof parsed === 'object' && typeof (parsed as { challenge?: unknown }).challenge === 'string') {
      return (parsed as { challenge: string }).challenge;
    }
  } catch {
    // Not JSON: nothing to echo.
  }
  return null;
}

let certificate: Promise<{ key: Buffer; cert: Buffer }> | null = null;

/** One key pair per test process: openssl takes a moment, and every HTTPS receiver can share it. */
function selfSignedCertificate(): Promise<{ key: Buffer; cert: Buffer }> {
  certificate ??= (async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'fl-webhook-tls-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const keyFile = path.join(dir, 'key.pem');
    const certFile = path.join(dir, 'cert.pem');
    // The names are right (localhost, 127.0.0.1): only the missing trust chain makes it fail, so a test sees
    // the self-signed error rather than a host name mismatch.
    await promisify(execFile)('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-days', '1',
      '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout', keyFile, '-out', certFile,
    ]);
    return { key: readFileSync(keyFile), cert: readFileSync(certFile) };
  })();
  // A failed openssl run is reported to this caller, and the next one tries again.
  certificate.catch(() => {
    certificate = null;
  });
  return certificate;
}
