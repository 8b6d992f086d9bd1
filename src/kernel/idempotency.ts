import { createHash, randomUUID } from 'node:crypto';
import type { Clock } from './clock.ts';
import { runAsTenant, type RequestContext } from './context.ts';
import { AppError } from './errors.ts';
import { Single } from './served-record.ts';
import type { TenantTx } from './tenancy.ts';
import { tenantQuery, type RawRunner } from './tenant-sql.ts';

// Idempotency keys of financial creates (spec "Idempotency on financial creates", rules 1-5; docs/decisions.md
// "Idempotency keys"). One store for REST (the Idempotency-Key header) and GraphQL (the idempotencyKey argument).
//
//   claim     an INSERT ... ON CONFLICT of its own (autocommitted), so a concurrent request with the same key sees
//             the claim before the work commits: state running, a claim token, locked_until = now + lock time.
//   work      the create runs in its transaction; before it commits, the service calls ctx.idempotency.complete
//             with the records it wrote, which are stored (state done) in that same transaction, only while the
//             claim is still this request's (its token): the records and what they are replayed from commit
//             together. Both APIs answer the first request and every replay from those stored records (REST
//             renders its 201 from them, byte for byte the same each time; GraphQL serves them).
//   failure   a 4xx or 5xx rolls the work back and deletes the claim, so the key may be reused (rule 5).
//   crash     a process that dies mid-request leaves a running claim; once locked_until passes, the next request
//             with the key takes it over (the transaction that held it never committed, so nothing was created).
//   expiry    a key is answered for 24 hours (the replay window); after that it may be claimed again, and the
//             hourly purge deletes it (src/db/idempotency-purge.ts, across accounts).
//
// A key belongs to the account and API key that sent it: another key of the same account may use the same value
// for another operation. It names one request: method, path and the body's canonical JSON (key order does not
// matter). The same key on another method or path answers 409 like a different body.

/** Printable ASCII without spaces, 1 to 255 characters. */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
/** The spec's replay window. */
const REPLAY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** The spec's retry hint while the first request runs. */
const IN_FLIGHT_RETRY_AFTER_SECONDS = 2;

/** What an idempotent write produced: the records it wrote, each with its ETag, by name (a create: its resource's). */
export type IdempotentRecords = Readonly<Record<string, Single>>;

/**
 * What a key stored before results were stored as records (2026-11-28) replays: the answer REST sent, or the id of
 * the record GraphQL created. Such keys are answered for 24 hours after the upgrade, then expire.
 */
export interface LegacyResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  recordId: string;
}

/** The answer of a request with an idempotency key: the first run's records (replayed or not), or a legacy answer. */
export type IdempotentOutcome = { records: IdempotentRecords; replayed: boolean } | { legacy: LegacyResponse; replayed: true };

/** The stored form: the records as JSON text (a string, so jsonb keeps it byte for byte). */
interface StoredRecords {
  records: string;
}

/** What an idempotent request is, for the fingerprint its key is bound to. */
export interface IdempotentRequest {
  /** The key as sent (validated by the store). */
  key: unknown;
  /** HTTP method, or GRAPHQL for a mutation. */
  method: string;
  /** The path under the API (e.g. /api/v2/invoices), or the mutation's name. */
  path: string;
  body: unknown;
}

/** How the service that does the work completes the key, inside its transaction (RequestContext.idempotency). */
export interface IdempotencyScope {
  complete(tx: TenantTx, records: IdempotentRecords): Promise<void>;
}

/**
 * The request's idempotency scope: a financial create refuses to run without one (400 idempotency_key.required),
 * whatever the adapter, so no path can create it outside the store. `what`: "An invoice".
 */
export function idempotencyOf(ctx: RequestContext, what: string): IdempotencyScope {
  if (!ctx.idempotency) throw new AppError('idempotency_key.required', `${what} is created with an idempotency key.`);
  return ctx.idempotency;
}

export interface IdempotencyOptions {
  /** How long a claim holds before another request may take it over (a process died mid-request). */
  lockMs: number;
}

interface KeyRow {
  method: string;
  path: string;
  fingerprint: string;
  state: 'running' | 'done';
  response: StoredRecords | LegacyResponse | null;
}

/** JSON with object keys sorted at every depth, so two bodies that differ only in key order are the same. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

function fingerprintOf(request: IdempotentRequest): string {
  return createHash('sha256').update(`${request.method} ${request.path}\n${canonicalJson(request.body)}`).digest('hex');
}

/**
 * How a request with an idempotency key ended: `completed` (the first run succeeded and its answer is stored),
 * `failed` (the first run failed and released the key), `replayed` (a stored answer was sent again), `in_flight` (the
 * key is held by a request still running: 409 with Retry-After), `mismatch` (used for another request: 409).
 */
export type IdempotencyOutcome = 'completed' | 'failed' | 'replayed' | 'in_flight' | 'mismatch';
export type IdempotencyListener = (outcome: IdempotencyOutcome) => void;

export class IdempotencyStore {
  private listeners: readonly IdempotencyListener[] = [];

  constructor(
    /** Statements outside any transaction (claims and releases commit on their own). */
    private readonly raw: RawRunner,
    private readonly clock: Clock,
    private readonly options: IdempotencyOptions,
  ) {}

  /** Calls `listener` with the outcome of every request with a key that reached the store (metrics); answers the unsubscribe. */
  onOutcome(listener: IdempotencyListener): () => void {
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((registered) => registered !== listener);
    };
  }

  private told(outcome: IdempotencyOutcome): void {
    for (const listener of this.listeners) listener(outcome);
  }

  /** The key as sent, checked: absent is 400 idempotency_key.required, malformed 400 idempotency_key.invalid. */
  static keyOf(value: unknown): string {
    if (value === undefined || value === null) throw new AppError('idempotency_key.required', 'Send an Idempotency-Key header (for example a UUID) with every financial create.');
    if (typeof value !== 'string' || !KEY_PATTERN.test(value)) {
      throw new AppError('idempotency_key.invalid', 'Idempotency-Key must be 1 to 255 printable ASCII characters (no spaces), sent once.');
    }
    return value;
  }

  /**
   * Runs `write` at most once per key: the first request runs it (the write calls ctx.idempotency.complete inside
   * its transaction with the records it wrote); a retry with the same key and request gets those records
   * (replayed: true); the other cases answer 409 idempotency_key.in_use.
   */
  async run(ctx: RequestContext, request: IdempotentRequest, write: (ctx: RequestContext) => Promise<unknown>): Promise<IdempotentOutcome> {
    const key = IdempotencyStore.keyOf(request.key);
    const fingerprint = fingerprintOf(request);
    const scope = { account: ctx.principal.accountId, apiKey: ctx.principal.key.id, key };
    let claim: Awaited<ReturnType<IdempotencyStore['claim']>>;
    try {
      claim = await this.claim(scope, request, fingerprint);
    } catch (error) {
      if (error instanceof AppError && error.code === 'idempotency_key.in_use') this.told('Retry-After' in error.headers ? 'in_flight' : 'mismatch');
      throw error;
    }
    if (claim.kind === 'replay') {
      this.told('replayed');
      return claim.outcome;
    }

    let stored: string | undefined;
    const idempotency: IdempotencyScope = {
      complete: async (tx, records) => {
        const text = JSON.stringify(Object.fromEntries(Object.entries(records).map(([name, single]) => [name, { record: single.record, etag: single.etag }])));
        const [written] = await tenantQuery<{ done: number }>(
          tx,
          `UPDATE idempotency_keys SET state = 'done', response = $5::jsonb
           WHERE account_id = $1::uuid AND api_key_id = $2::uuid AND key = $3 AND claim_token = $4::uuid AND state = 'running'
           RETURNING 1 AS done`,
          scope.apiKey,
          key,
          claim.token,
          JSON.stringify({ records: text } satisfies StoredRecords),
        );
        // The claim outlived its lock and another request took the key over: this write must not commit too.
        if (!written) throw inFlight('The request took longer than the key is held; its work was rolled back. Retry with the same key.');
        stored = text;
      },
    };
    try {
      await write({ ...ctx, idempotency });
      if (stored === undefined) throw new Error('an idempotent write returned without completing its key (ctx.idempotency.complete)');
      this.told('completed');
      // The first answer is made from the records as stored, so a replay is made from the very same values.
      return { records: recordsOf(stored), replayed: false };
    } catch (error) {
      this.told('failed');
      await this.release(scope, claim.token);
      throw error;
    }
  }

  private async claim(
    scope: { account: string; apiKey: string; key: string },
    request: IdempotentRequest,
    fingerprint: string,
  ): Promise<{ kind: 'claimed'; token: string } | { kind: 'replay'; outcome: IdempotentOutcome }> {
    return runAsTenant(scope.account, async () => {
      // Two rounds: a claim released (its request failed) between our insert and our read is claimed again.
      for (let round = 0; round < 2; round += 1) {
        const now = this.clock.now();
        const token = randomUUID();
        const [claimed] = await tenantQuery<{ claim_token: string }>(
          this.raw,
          `INSERT INTO idempotency_keys AS k (account_id, api_key_id, key, method, path, fingerprint, state, claim_token, locked_until, created_at, expires_at)
           VALUES ($1::uuid, $2::uuid, $3, $4, $5, $6, 'running', $7::uuid, $8::timestamptz, $9::timestamptz, $10::timestamptz)
           ON CONFLICT (account_id, api_key_id, key) DO UPDATE SET method = EXCLUDED.method, path = EXCLUDED.path,
             fingerprint = EXCLUDED.fingerprint, state = 'running', claim_token = EXCLUDED.claim_token, locked_until = EXCLUDED.locked_until,
             response = NULL, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
           WHERE k.expires_at <= EXCLUDED.created_at OR (k.state = 'running' AND k.locked_until <= EXCLUDED.created_at)
           RETURNING claim_token::text`,
          scope.apiKey,
          scope.key,
          request.method,
          request.path,
          fingerprint,
          token,
          new Date(now.getTime() + this.options.lockMs),
          now,
          new Date(now.getTime() + REPLAY_WINDOW_MS),
        );
        if (claimed?.claim_token === token) return { kind: 'claimed', token };
        const [held] = await tenantQuery<KeyRow>(
          this.raw,
          `SELECT method, path, fingerprint, state, response FROM idempotency_keys WHERE account_id = $1::uuid AND api_key_id = $2::uuid AND key = $3`,
          scope.apiKey,
          scope.key,
        );
        if (!held) continue;
        if (held.state === 'running') throw inFlight('A request with this Idempotency-Key is still running; retry after Retry-After seconds to get its response.');
        if (held.fingerprint !== fingerprint) {
          const where = held.method === request.method && held.path === request.path ? 'with a different body' : `for ${held.method} ${held.path}`;
          throw new AppError('idempotency_key.in_use', `This Idempotency-Key was used within the last 24 hours ${where}; use a new key for a new operation.`);
        }
        const response = held.response!;
        return { kind: 'replay', outcome: 'records' in response ? { records: recordsOf(response.records), replayed: true } : { legacy: response, replayed: true } };
      }
      throw inFlight('The request with this Idempotency-Key was just released; retry.');
    });
  }

  /** Deletes this request's claim (its work failed or was rolled back), so the key may be used again. */
  private async release(scope: { account: string; apiKey: string; key: string }, token: string): Promise<void> {
    await runAsTenant(scope.account, () =>
      tenantQuery(
        this.raw,
        `DELETE FROM idempotency_keys WHERE account_id = $1::uuid AND api_key_id = $2::uuid AND key = $3 AND claim_token = $4::uuid AND state = 'running'`,
        scope.apiKey,
        scope.key,
        token,
      ),
    );
  }
}

/** The stored records, as Singles. */
function recordsOf(text: string): IdempotentRecords {
  const parsed = JSON.parse(text) as Record<string, { record: Record<string, unknown>; etag: string }>;
  return Object.fromEntries(Object.entries(parsed).map(([name, { record, etag }]) => [name, new Single(record, etag)]));
}

function inFlight(detail: string): AppError {
  return new AppError('idempotency_key.in_use', detail, {}, { 'Retry-After': String(IN_FLIGHT_RETRY_AFTER_SECONDS) });
}
