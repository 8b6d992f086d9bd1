import { AppError, validationError } from '../../kernel/errors.ts';

// A webhook endpoint's states and the moves between them, in one place (spec, webhook endpoint states;
// docs/webhooks.md). Ownership is the rule everything here serves: an endpoint is verified only at a URL that
// echoed a challenge. `verified_url` remembers which URL did; any URL change forgets it, and a CHECK in the
// database refuses a verified endpoint whose URL is not that one, so no write elsewhere can break the rule.
//
// PATCH (current status x requested status x URL change; a paused endpoint is a verified one):
//   status disabled     -> disabled (the pause is dropped).
//   status unverified   -> unverified (no handshake: the caller asked for unverified; POST .../verify runs it).
//   status verified     -> refused on an unverified endpoint (only the handshake verifies: POST .../verify);
//                          on a verified one, unchanged unless the URL changed;
//                          on a disabled one, verified when its URL is the one that last echoed, else unverified
//                          with the handshake run at once (200 verified when it echoes, 422 verification.* not).
//   no status           -> a URL change makes an enabled endpoint unverified and runs the handshake; a disabled
//                          one stays disabled (and must echo at its new URL once re-enabled).
// Entering an enabled state from another status, or changing the URL of an enabled endpoint, clears the circuit
// breaker (failure count, failing_since, paused_until): the failures were those of another URL or another run.

export const endpointStatuses = ['unverified', 'verified', 'disabled'] as const;
export type EndpointStatus = (typeof endpointStatuses)[number];

export interface EndpointState {
  status: string;
  url: string;
  verified_url: string | null;
  paused_until: Date | null;
}

export interface EndpointPatch {
  status?: EndpointStatus;
  url?: string;
}

const clearedBreaker = { consecutive_failures: 0, failing_since: null, paused_until: null } as const;

export type PatchOutcome =
  /** A refusal of the requested status (a field error on status). */
  | { refused: string }
  /** The columns to write besides the patch's own values (status always stated). */
  | { columns: { status: EndpointStatus } & Record<string, unknown> };

/** What a PATCH does to the endpoint: the status it ends in and the columns that go with it, or a refusal. */
export function patchOutcome(current: EndpointState, patch: EndpointPatch): PatchOutcome {
  const urlChanged = patch.url !== undefined && patch.url !== current.url;
  const proof = urlChanged ? { verified_url: null } : {};
  const requested = patch.status;
  if (requested === 'disabled') return { columns: { status: 'disabled', paused_until: null, ...proof } };
  if (requested === undefined && current.status === 'disabled') return { columns: { status: 'disabled', ...proof } };
  if (requested === 'verified' && current.status === 'unverified') {
    return { refused: 'becomes verified only by the verification handshake: POST /webhooks/endpoints/{id}/verify' };
  }
  const proven = !urlChanged && current.verified_url === current.url;
  const target: EndpointStatus =
    requested === 'unverified' ? 'unverified'
    : current.status === 'disabled' ? (proven ? 'verified' : 'unverified')
    : urlChanged ? 'unverified'
    : (current.status as EndpointStatus);
  const breaker = target !== current.status || urlChanged ? clearedBreaker : {};
  return { columns: { status: target, ...breaker, ...proof } };
}

/**
 * Whether the handshake runs after a committed PATCH: the endpoint is unverified now, and the PATCH moved its URL
 * or asked for verified (re-enabling at an unproven URL). A PATCH that asks for unverified gets what it sent.
 */
export function handshakeDue(before: Record<string, unknown>, after: Record<string, unknown>, requested: unknown): boolean {
  return requested !== 'unverified' && after.status === 'unverified' && (after.url !== before.url || requested === 'verified');
}

/**
 * The lifecycle refusals of the actions (spec, Events 4 and 5): a disabled endpoint refuses with endpoint.disabled,
 * a paused one with endpoint.paused (unless the action is allowed while paused: the test delivery).
 */
export function checkLifecycle(row: { status: string; paused_until: Date | null }, now: Date, allowPaused = false): void {
  if (row.status === 'disabled') {
    throw new AppError('endpoint.disabled', 'The endpoint is disabled: re-enable it first (PATCH with status verified or unverified).');
  }
  if (!allowPaused && row.paused_until && row.paused_until > now) {
    throw new AppError('endpoint.paused', `The endpoint is paused by the circuit breaker until ${row.paused_until.toISOString()}; POST .../test clears the pause once the cause is fixed.`, {
      paused_until: row.paused_until.toISOString(),
    });
  }
}

/** Whether events may be sent to the endpoint's URL at all: verified there (a paused endpoint waits, it is not refused). */
export function deliverable(row: EndpointState): boolean {
  return row.status === 'verified' && row.verified_url === row.url;
}

/** The refusal of a delivery the caller asked for (test, replay): the lifecycle ones, then an unverified URL. */
export function checkDeliverable(row: EndpointState, now: Date, allowPaused = false): void {
  checkLifecycle(row, now, allowPaused);
  if (!deliverable(row)) throw validationError({ status: ['is unverified: nothing is sent to its URL until it echoes a challenge (POST /webhooks/endpoints/{id}/verify)'] });
}
