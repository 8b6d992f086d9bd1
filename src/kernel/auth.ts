import { timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { hashToken, looksLikeToken } from './api-keys.ts';
import type { Clock } from './clock.ts';
import type { AccountModules, Principal } from './context.ts';
import { AppError } from './errors.ts';
import type { Role } from './permissions.ts';
import { grants, type Scope } from './scopes.ts';

// Authentication of `Authorization: Bearer svc_...`: every row of the spec's Authentication table.
// Verified key rows are cached briefly (AUTH_CACHE_TTL_MS, at most 5 s); decisions (expiry, revocation,
// deactivation, inactivation) are taken on every request from the cached row, so each change to the
// key, user or account takes effect within the cache lifetime.
// Known keys and unknown tokens are cached apart, each an LRU of bounded size that evicts one entry at a
// time: a flood of random tokens fills only the cache of unknown tokens and never evicts a valid key.
// A token is read from the database only when it has the key format (svc_ and a UUID) and no cache answers it:
// garbage never costs a read, and a repeated unknown token costs one per cache lifetime. Who pays for the request
// (the key's rate bucket, or the source address's when it does not authenticate) is decided after the lookup, so a
// valid key is never refused for what other clients of its address did (admission.ts, docs/decisions.md).

/** Known keys cached at most (an account's keys are few; this bounds memory, not correctness). */
const KNOWN_KEYS_CACHED = 10_000;
/** Unknown tokens remembered at most. */
const UNKNOWN_TOKENS_CACHED = 10_000;

export const defaultModules: AccountModules = { AddressRequired: 'Yes', System: 'off' };

interface KeyRow {
  id: string;
  token_hash: string;
  scopes: string[];
  api_version: string;
  expires_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
  user: { id: bigint; name: string; email: string; role: string; active: boolean };
  account: { id: string; name: string; sandbox: boolean; api_access: boolean; active: boolean; deactivation_reason: string | null; modules: unknown; currency: string; time_zone: string; payment_terms_days: number };
}

const keySelect = {
  id: true, token_hash: true, scopes: true, api_version: true, expires_at: true, revoked_at: true, created_at: true,
  user: { select: { id: true, name: true, email: true, role: true, active: true } },
  account: {
    select: { id: true, name: true, sandbox: true, api_access: true, active: true, deactivation_reason: true, modules: true, currency: true, time_zone: true, payment_terms_days: true },
  },
} as const;

/** What a change to identities touched: a key, a user (every key of it) or an account (every key of it). */
export interface IdentityChange {
  keyId?: string;
  userId?: number;
  accountId?: string;
}

export class Authenticator {
  private readonly known: LRUCache<string, KeyRow> | null;
  private readonly unknown: LRUCache<string, true> | null;

  constructor(
    private readonly db: PrismaClient,
    private readonly clock: Clock,
    ttlMs: number,
  ) {
    this.known = ttlMs > 0 ? new LRUCache({ max: KNOWN_KEYS_CACHED, ttl: ttlMs }) : null;
    this.unknown = ttlMs > 0 ? new LRUCache({ max: UNKNOWN_TOKENS_CACHED, ttl: ttlMs }) : null;
  }

  private async load(hash: string): Promise<KeyRow | null> {
    const cached = this.known?.get(hash);
    if (cached) return cached;
    if (this.unknown?.has(hash)) return null;
    let row: KeyRow | null;
    try {
      row = (await this.db.apiKey.findUnique({
        where: { token_hash: hash },
        select: keySelect,
      })) as KeyRow | null;
    } catch {
      throw new AppError('auth.failed', 'The API key could not be verified; retry later.');
    }
    if (row) this.known?.set(hash, row);
    else this.unknown?.set(hash, true);
    return row;
  }

  /**
   * Drops the cached rows a change to identities made: of the key, of every key of the user or of the account. The
   * process that makes the change (AdminService: revoking or rotating a key, switching a user or an account off,
   * changing an account's plan or settings) refuses or re-reads at once; other processes within their cache's
   * lifetime (AUTH_CACHE_TTL_MS). The cache holds 10,000 rows at most, so a walk over it is cheap beside a change.
   */
  forget(change: IdentityChange): void {
    if (!this.known) return;
    for (const [hash, row] of this.known.entries()) {
      if (row.id === change.keyId || (change.userId !== undefined && Number(row.user.id) === change.userId) || row.account.id === change.accountId) this.known.delete(hash);
    }
  }

  /** Why a key that exists may not be used now (revoked, expired, its account or user off, no API access), or null. */
  private refusalOf(row: KeyRow): AppError | null {
    if (row.revoked_at) return new AppError('auth.token_revoked', 'This API key was revoked or rotated.');
    if (row.expires_at && row.expires_at.getTime() <= this.clock.now().getTime()) {
      return new AppError('auth.invalid_token', 'The token matches no active, unexpired API key.');
    }
    const { account, user } = row;
    if (!account.active) {
      return new AppError('account.deactivated', 'The account is deactivated.', account.deactivation_reason ? { reason: account.deactivation_reason } : {});
    }
    if (!user.active) return new AppError('account.inactive', "The key's user is inactive.");
    if (!account.api_access && !account.sandbox) return new AppError('auth.plan_required', "The account's plan has no API access.");
    return null;
  }

  /**
   * Why each of these keys may no longer be used, read now (not from the cache): long-lived connections (GraphQL
   * subscriptions) re-check their keys with it, so a revocation ends them within the check's interval. A key
   * missing from the answer is still usable.
   */
  async refusals(keyIds: readonly string[]): Promise<Map<string, AppError>> {
    const rows = (await this.db.apiKey.findMany({ where: { id: { in: [...keyIds] } }, select: keySelect })) as KeyRow[];
    const refused = new Map<string, AppError>();
    const found = new Set(rows.map((row) => row.id));
    for (const id of keyIds) if (!found.has(id)) refused.set(id, new AppError('auth.token_revoked', 'This API key was revoked or rotated.'));
    for (const row of rows) {
      const refusal = this.refusalOf(row);
      if (refusal) refused.set(row.id, refusal);
    }
    return refused;
  }

  async authenticate(authorization: string | undefined): Promise<Principal> {
    const match = authorization ? /^Bearer[ ]+(\S+)\s*$/i.exec(authorization) : null;
    if (!match) throw new AppError('auth.missing_token', 'Send the API key as Authorization: Bearer <API_KEY>.');
    const token = match[1];
    if (!looksLikeToken(token)) throw new AppError('auth.invalid_token', 'The token matches no active, unexpired API key.');
    const hash = hashToken(token);
    const row = await this.load(hash);
    if (!row || !timingSafeEqual(Buffer.from(row.token_hash, 'hex'), Buffer.from(hash, 'hex'))) {
      throw new AppError('auth.invalid_token', 'The token matches no active, unexpired API key.');
    }
    const refusal = this.refusalOf(row);
    if (refusal) throw refusal;
    let principal = principals.get(row);
    if (!principal) principals.set(row, (principal = principalOf(row)));
    return principal;
  }
}

/**
 * The principal of a key row, made once per row read: requests and subscriptions admitted while the row is cached
 * share it (nothing changes a principal; an open subscription keeps one, and a process may hold 10,000).
 */
const principals = new WeakMap<object, Principal>();

/** The account as a principal carries it, from its row (a request's key, or work no request is behind: system-context.ts). */
export function principalAccount(account: Pick<KeyRow['account'], 'id' | 'name' | 'sandbox' | 'modules' | 'currency' | 'time_zone' | 'payment_terms_days'>): Principal['account'] {
  return {
    id: account.id,
    name: account.name,
    sandbox: account.sandbox,
    modules: { ...defaultModules, ...(account.modules as object) },
    currency: account.currency,
    timeZone: account.time_zone,
    paymentTermsDays: account.payment_terms_days,
  };
}

function principalOf(row: KeyRow): Principal {
  const { account, user } = row;
  return {
    accountId: account.id,
    account: principalAccount(account),
    user: { id: user.id, name: user.name, email: user.email, role: user.role as Role },
    key: { id: row.id, scopes: row.scopes, expiresAt: row.expires_at, createdAt: row.created_at, apiVersion: row.api_version },
  };
}

export function requireScope(principal: Principal, scope: Scope): void {
  if (!grants(principal.key.scopes, scope)) {
    throw new AppError('auth.scope_missing', `This endpoint needs the scope ${scope}.`, {
      required_scope: scope,
      granted_scopes: principal.key.scopes,
    });
  }
}
