import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { PrismaClient } from '../generated/prisma/client.ts';
import type { Clock } from './clock.ts';
import { AppError } from './errors.ts';

// Opaque list cursors: base64url(JSON payload) "." base64url(HMAC-SHA256). The payload names its signing key
// (kid); keys live in the signing_keys table so every process agrees. Rotation adds a new active key; older
// keys keep verifying until they are retired, after which their cursors answer cursor.invalid.

export const CURSOR_LIFETIME_MS = 24 * 60 * 60 * 1000;
const KEYS_CACHE_MS = 5000;

export interface CursorPayload {
  /** list (resource) and account the cursor belongs to: it is valid nowhere else */
  r: string;
  a: string;
  /** sort field and direction */
  s: string;
  d: 'asc' | 'desc';
  /** keyset position: last sort value and last id */
  v: string | number | boolean | null;
  id: string;
  /** fingerprint of the filters, q and custom_fields of the first request */
  f: string;
  /** issued at, epoch ms */
  t: number;
}

interface SigningKeyRow {
  id: string;
  secret: string;
  created_at: Date;
}

export class SigningKeys {
  private cache: { at: number; keys: SigningKeyRow[] } | null = null;

  constructor(private readonly db: PrismaClient) {}

  invalidate(): void {
    this.cache = null;
  }

  async live(): Promise<SigningKeyRow[]> {
    if (this.cache && Date.now() - this.cache.at < KEYS_CACHE_MS) return this.cache.keys;
    let keys = await this.db.signingKey.findMany({ where: { retired_at: null }, orderBy: { created_at: 'desc' } });
    if (keys.length === 0) {
      await this.rotate();
      keys = await this.db.signingKey.findMany({ where: { retired_at: null }, orderBy: { created_at: 'desc' } });
    }
    this.cache = { at: Date.now(), keys };
    return keys;
  }

  /** Adds a new active key; returns its id. */
  async rotate(options: { retirePrevious?: boolean } = {}): Promise<string> {
    const id = `k${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
    await this.db.$transaction(async (tx) => {
      if (options.retirePrevious) await tx.signingKey.updateMany({ where: { retired_at: null }, data: { retired_at: new Date() } });
      await tx.signingKey.create({ data: { id, secret: randomBytes(32).toString('base64url') } });
    });
    this.invalidate();
    return id;
  }

  async retire(id: string): Promise<boolean> {
    const result = await this.db.signingKey.updateMany({ where: { id, retired_at: null }, data: { retired_at: new Date() } });
    this.invalidate();
    return result.count > 0;
  }
}

function mac(secret: string, data: string): Buffer {
  return createHmac('sha256', secret).update(data).digest();
}

/**
 * The form of every cursor: base64url payload "." base64url signature, neither empty. Anything else is refused
 * (cursor.invalid) before it is decoded; the OpenAPI document states it as the cursor parameters' pattern.
 */
export const CURSOR_FORM = /^[^.]+\.[^.]+$/;

export class CursorCodec {
  constructor(
    private readonly keys: SigningKeys,
    private readonly clock: Clock,
  ) {}

  async encode(payload: Omit<CursorPayload, 't'>): Promise<string> {
    const [active] = await this.keys.live();
    const body = Buffer.from(JSON.stringify({ ...payload, t: this.clock.now().getTime(), k: active.id })).toString('base64url');
    return `${body}.${mac(active.secret, body).toString('base64url')}`;
  }

  async decode(cursor: string, expected: { resource: string; account: string; fingerprint: string }): Promise<CursorPayload> {
    const invalid = () => new AppError('cursor.invalid', 'The cursor cannot be decoded; pass back the cursor of the previous page verbatim.');
    if (!CURSOR_FORM.test(cursor)) throw invalid();
    const parts = cursor.split('.');
    let payload: CursorPayload & { k?: unknown };
    try {
      payload = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8'));
    } catch {
      throw invalid();
    }
    if (!payload || typeof payload !== 'object' || typeof payload.k !== 'string') throw invalid();
    const key = (await this.keys.live()).find((k) => k.id === payload.k);
    if (!key) throw invalid();
    const given = Buffer.from(parts[1], 'base64url');
    const wanted = mac(key.secret, parts[0]);
    if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) throw invalid();
    if (payload.r !== expected.resource || payload.a !== expected.account || typeof payload.t !== 'number' || typeof payload.id !== 'string') throw invalid();
    if (this.clock.now().getTime() - payload.t > CURSOR_LIFETIME_MS) {
      throw new AppError('cursor.expired', 'The cursor is older than 24 hours; start again from the first page.');
    }
    if (payload.f !== expected.fingerprint) {
      throw new AppError('cursor.invalid_filters', 'Filters, q or custom_fields differ from the request that issued this cursor.');
    }
    return payload;
  }
}

export function fingerprint(entries: [string, string][]): string {
  const canonical = JSON.stringify([...entries].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : 1)));
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 22);
}

/**
 * The cursors of a page's rows, each signed once however often it is asked for (an edge's cursor and the page's
 * endCursor are the same cursor, with the same issue time).
 */
export function pageCursors(make: (index: number) => Promise<string>): (index: number) => Promise<string> {
  let made: Map<number, Promise<string>> | undefined;
  return (index) => {
    made ??= new Map();
    return made.get(index) ?? made.set(index, make(index)).get(index)!;
  };
}
