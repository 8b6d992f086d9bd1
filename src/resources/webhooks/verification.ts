import { randomBytes } from 'node:crypto';
import type { RequestContext } from '../../kernel/context.ts';
import { AppError, notFound, type ErrorCode } from '../../kernel/errors.ts';
import { isUuid, newId } from '../../kernel/ids.ts';
import type { ResourceLookup } from '../../kernel/resource.ts';
import { Single } from '../../kernel/resource-service.ts';
import type { DomainSettings } from '../../kernel/settings.ts';
import { inTransaction, type TenantClient, type TenantTx } from '../../kernel/tenancy.ts';
import { keyring } from './keyring.ts';
import { answerSummary, postJson, type OutboundResult } from './outbound.ts';
import { decryptSecret } from './secrets.ts';
import { signedHeaders } from './signing.ts';
import { checkLifecycle } from './endpoint-states.ts';
import { tenantQuery } from '../../kernel/tenant-sql.ts';

// The verification handshake (spec, Events 3): the service POSTs a signed
// {"type": "webhook_endpoint.verification", "challenge": "<random>"} to the endpoint, which must answer 2xx
// with the challenge as its body, verbatim (surrounding whitespace is ignored: frameworks add a newline), or
// as the JSON {"challenge": "<challenge>"}. Anything else is refused with the code of its real cause, the
// endpoint's id in the problem body, and the endpoint stays unverified. It runs in the request (the caller
// waits for its answer), outside any transaction, bounded by WEBHOOK_VERIFY_TIMEOUT_MS.

export interface VerificationDeps {
  ctx: RequestContext;
  db: TenantClient;
  settings: DomainSettings;
  resources: ResourceLookup;
}

/** What a verification answer means: null when the challenge came back, else the code and its detail. */
export function verificationOutcome(result: OutboundResult, challenge: string): { code: ErrorCode; detail: string } | null {
  if (result.failure) {
    const kind = result.failure.kind;
    const code: ErrorCode =
      kind === 'timeout' ? 'verification.timeout'
      : kind === 'tls' ? 'verification.ssl_error'
      : kind === 'network' ? 'verification.network_unreachable'
      : 'verification.failed';
    return { code, detail: `The verification request failed: ${result.failure.message}.` };
  }
  const status = result.status!;
  if (status < 200 || status > 299) {
    return { code: 'verification.unknown_error', detail: `The endpoint answered ${answerSummary(result)}.` };
  }
  const body = result.body.trim();
  if (body === challenge) return null;
  try {
    const parsed = JSON.parse(body) as { challenge?: unknown };
    if (parsed && typeof parsed === 'object' && parsed.challenge === challenge) return null;
  } catch {
    // not JSON: a mismatch
  }
  return { code: 'verification.echo_mismatch', detail: `The endpoint answered HTTP ${status} without the challenge as its body (got ${body.length} characters).` };
}

/** The endpoint's row (tenant-scoped), or 404. */
async function endpointRow(db: TenantClient, id: string) {
  const row = isUuid(id) ? await db.webhookEndpoint.findUnique({ where: { id } }) : null;
  if (!row) throw notFound('Webhook endpoint');
  return row;
}

/** The endpoint's row read under its row lock (null when it is gone): for decisions made after network I/O. */
export async function lockedEndpoint(tx: TenantTx, id: string) {
  await tenantQuery(tx, `SELECT 1 FROM webhook_endpoints WHERE account_id = $1::uuid AND id = $2::uuid FOR UPDATE`, id);
  return tx.webhookEndpoint.findUnique({ where: { id } });
}

/** The secrets that sign now: the current one, and the previous one for 24 hours after a rotation. */
export async function signingSecrets(db: TenantClient, settings: DomainSettings, row: { secret_ciphertext: string; previous_secret_ciphertext: string | null; previous_secret_expires_at: Date | null }, now: Date): Promise<string[]> {
  const keys = await keyring(db, settings.webhooks);
  const secrets = [await decryptSecret(keys, row.secret_ciphertext)];
  if (row.previous_secret_ciphertext && row.previous_secret_expires_at && row.previous_secret_expires_at > now) secrets.push(await decryptSecret(keys, row.previous_secret_ciphertext));
  return secrets;
}

/** Runs the handshake; on success the endpoint is verified (webhook_endpoint.verified) and returned. */
export async function verifyEndpoint(deps: VerificationDeps, id: string): Promise<Single> {
  const { db, ctx, settings } = deps;
  const endpoints = deps.resources('webhook_endpoint');
  const row = await endpointRow(db, id);
  const now = endpoints.now();
  checkLifecycle(row, now);
  const challenge = randomBytes(24).toString('base64url');
  const body = JSON.stringify({ type: 'webhook_endpoint.verification', challenge });
  const headers = signedHeaders(await signingSecrets(db, settings, row, now), `verify_${newId()}`, now, body);
  const result = await postJson(row.url, headers, body, { allowPrivateNetworks: settings.webhooks.allowPrivateNetworks, allowLoopback: settings.webhooks.allowLoopback, timeoutMs: settings.webhooks.verifyTimeoutMs });
  const failure = verificationOutcome(result, challenge);
  if (failure) throw new AppError(failure.code, failure.detail, { endpoint_id: id });
  return inTransaction(db, async (tx) => {
    // The handshake ran outside any transaction: the endpoint becomes verified only if, under its row lock, it
    // is still at the URL that echoed and still enabled (a PATCH or a disable that came meanwhile wins).
    const current = await lockedEndpoint(tx, id);
    if (!current || current.url !== row.url || current.status === 'disabled') {
      throw new AppError('verification.failed', 'The endpoint changed while the verification ran (its URL, or it was disabled or deleted); it stays as it is now: read it again and verify it if needed.', { endpoint_id: id });
    }
    const verified = await endpoints.touchWithin(tx, ctx, id, { status: 'verified', verified_url: row.url, consecutive_failures: 0, failing_since: null, paused_until: null });
    await endpoints.announceWithin(tx, ctx, verified, 'verified');
    return verified;
  });
}

/** The record with its signing secret: the create's and rotate_secret's answers only. */
export async function withSecret(deps: Pick<VerificationDeps, 'db' | 'settings'>, single: Single): Promise<Single> {
  const row = await endpointRow(deps.db, single.record.id as string);
  const secret = await decryptSecret(await keyring(deps.db, deps.settings.webhooks), row.secret_ciphertext);
  return new Single({ ...single.record, secret }, single.etag);
}
