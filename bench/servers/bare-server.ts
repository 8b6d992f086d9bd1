// The baseline: the smallest honest service for GET /api/v2/customers?limit=25 — node:http + pg, one prepared
// statement (the exact SQL the app's kernel issues, captured by the bench), the same JSON shape ({data, has_more},
// same fields and values). Auth: Bearer token -> SHA-256 -> constant-time compare with the one known key hash held in
// memory (no database lookup, no scopes, no rate limit, no cursor signing, no Link header, no request id).
import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import pg from 'pg';
import { answerControlMessages } from './control.ts';

interface StartMessage {
  type: 'start';
  databaseUrl: string;
  poolSize: number;
  sql: string;
  accountId: string;
  tokenHash: string;
  limit: number;
}

// Same wire values as the app: int8 as a JS number (assignee_id), timestamps as Date -> ISO string.
pg.types.setTypeParser(20, (value: string) => Number(value));

answerControlMessages();

process.once('message', (message: StartMessage) => {
  void (async () => {
    const pool = new pg.Pool({ connectionString: message.databaseUrl, max: message.poolSize });
    const expected = Buffer.from(message.tokenHash, 'hex');
    const statement = { name: 'customers_list', text: message.sql, values: [message.accountId] };
    const limit = message.limit;
    // The wire fields are the selected columns minus lock_version (which only feeds the app's ETags).
    const selected = /^SELECT (.+?) FROM /s.exec(message.sql)?.[1] ?? '';
    const columns = selected.split(',').map((c) => c.trim()).filter((c) => c !== 'lock_version');

    const unauthorized = (res: http.ServerResponse) => {
      res.writeHead(401, { 'content-type': 'application/problem+json' });
      res.end('{"code":"auth.invalid_token"}');
    };

    const server = http.createServer((req, res) => {
      if (req.method !== 'GET' || req.url !== `/api/v2/customers?limit=${limit}`) {
        res.writeHead(404);
        res.end();
        return;
      }
      const header = req.headers.authorization ?? '';
      if (!header.startsWith('Bearer ')) return unauthorized(res);
      const given = createHash('sha256').update(header.slice(7), 'utf8').digest();
      if (!timingSafeEqual(given, expected)) return unauthorized(res);
      pool.query(statement).then(
        (result) => {
          const rows = result.rows as Record<string, unknown>[];
          const hasMore = rows.length > limit;
          const data = (hasMore ? rows.slice(0, limit) : rows).map((r) => {
            const out: Record<string, unknown> = {};
            for (const column of columns) {
              const value = r[column];
              out[column] = value instanceof Date ? value.toISOString() : value;
            }
            out.labels ??= [];
            out.custom_fields ??= {};
            return out;
          });
          const body = JSON.stringify({ data, has_more: hasMore });
          res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
          res.end(body);
        },
        () => {
          res.writeHead(500);
          res.end();
        },
      );
    });
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    let closing = false;
    const close = async () => {
      if (closing) return;
      closing = true;
      server.closeAllConnections();
      server.close();
      await pool.end().catch(() => {});
      process.exit(0);
    };
    process.on('SIGTERM', () => void close());
    process.on('SIGINT', () => void close());
    process.on('disconnect', () => void close());
    const address = server.address();
    process.send?.({ type: 'ready', port: typeof address === 'object' && address ? address.port : 0 });
  })().catch((error: unknown) => {
    process.send?.({ type: 'failed', message: (error as Error)?.message ?? String(error) });
    process.exit(1);
  });
});
