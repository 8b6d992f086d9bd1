import { expect } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { errorCatalog, type ErrorCode } from '../../src/kernel/errors.ts';
import type { ApiResponse } from './http.ts';

/**
 * The default base of problem `type` and `doc_url` links: the server's own error pages, the relative reference
 * `/errors` (startTestApp sets neither ERRORS_URL nor PUBLIC_URL unless a test passes them in `env`).
 */
export const ERRORS_URL = loadConfig({}).ERRORS_URL;

/** The spec's code grammar: <domain>.<verb_or_state>. */
export const CODE_PATTERN = /^[a-z_]+(\.[a-z_]+)+$/;

/** Top-level fields the spec lets some codes add to the envelope; anything else is a leak. */
export const ALLOWED_EXTRAS: ReadonlySet<string> = new Set(['errors', 'required_scope', 'granted_scopes', 'max_limit', 'reason', 'endpoint_id', 'topics', 'paused_until']);
/** The fields of every problem, in the order the server writes them. */
export const ENVELOPE: readonly string[] = ['type', 'title', 'status', 'code', 'detail', 'instance', 'request_id', 'doc_url'];

export interface ProblemExpectation {
  status: number;
  code: ErrorCode | string;
  /** The detail must contain this text (or match this pattern). */
  detail?: string | RegExp;
  /** validation.failed: each named field must be in `errors`; an array value must equal its messages exactly. */
  errors?: Record<string, true | string[] | RegExp>;
  /** When set, `errors` must hold exactly these field names. */
  onlyErrors?: boolean;
  /** The request path (without query string) the problem must name in `instance`; default: any path of /api/v2/. */
  instance?: string;
  /** The base of `type` and `doc_url` of the app that answered (its ERRORS_URL); default: the default ERRORS_URL. */
  errorsUrl?: string;
}

/**
 * Asserts that a response is the spec's problem+json (RFC 9457) for `code`: status, Content-Type, every envelope
 * field (type, title from the error catalog, status, code in the code grammar, detail string|null, instance
 * without query string, request_id = X-Request-Id, doc_url), no top-level fields beyond the documented extras,
 * and the parts of detail / errors / instance that name what went wrong. Returns the body for further checks.
 */
export function expectProblem(res: ApiResponse, expected: ProblemExpectation): Record<string, any> {
  const { status, code } = expected;
  const summary = `${res.status} ${res.text.slice(0, 600)}`;
  expect(res.status, summary).toBe(status);
  expect(res.headers.get('content-type') ?? '', summary).toMatch(/^application\/problem\+json(;|$)/);
  const body = res.body as Record<string, any>;
  expect(body, summary).toBeTypeOf('object');
  expect(body, summary).not.toBeNull();
  for (const field of ENVELOPE) expect(Object.keys(body), `${field} missing: ${summary}`).toContain(field);
  expect(body.code, summary).toBe(code);
  expect(body.code).toMatch(CODE_PATTERN);
  expect(body.status).toBe(status);
  const errorsUrl = expected.errorsUrl ?? ERRORS_URL;
  expect(body.type).toBe(`${errorsUrl}/${code}`);
  expect(body.doc_url).toBe(`${errorsUrl}/${code.replace(/[._]/g, '-')}`);
  expect(body.title).toBeTypeOf('string');
  expect(body.title.length).toBeGreaterThan(0);
  const catalogued = (errorCatalog as Record<string, { title: string; status: number }>)[code];
  if (catalogued) {
    expect(body.title).toBe(catalogued.title);
    expect(catalogued.status).toBe(status);
  }
  expect(body.detail === null || typeof body.detail === 'string', `detail must be string|null: ${summary}`).toBe(true);
  if (expected.detail !== undefined) {
    expect(body.detail, summary).toBeTypeOf('string');
    if (typeof expected.detail === 'string') expect(body.detail, summary).toContain(expected.detail);
    else expect(body.detail, summary).toMatch(expected.detail);
  }
  expect(body.instance).toBeTypeOf('string');
  if (expected.instance !== undefined) expect(body.instance).toBe(expected.instance);
  else expect(body.instance.startsWith('/api/v2/'), `instance ${body.instance}`).toBe(true);
  expect(body.instance).not.toContain('?');
  const requestId = res.headers.get('x-request-id');
  expect(requestId, 'X-Request-Id response header').toBeTruthy();
  expect(body.request_id).toBe(requestId);
  const extras = Object.keys(body).filter((k) => !ENVELOPE.includes(k));
  for (const extra of extras) expect(ALLOWED_EXTRAS.has(extra), `unexpected problem field ${extra}`).toBe(true);
  if (expected.errors) {
    expect(body.errors, summary).toBeTypeOf('object');
    for (const [field, want] of Object.entries(expected.errors)) {
      const messages = body.errors[field];
      expect(Array.isArray(messages), `errors.${field} in ${summary}`).toBe(true);
      expect(messages.length).toBeGreaterThan(0);
      if (Array.isArray(want)) expect(messages).toEqual(want);
      else if (want instanceof RegExp) expect(messages.join(' | ')).toMatch(want);
    }
    if (expected.onlyErrors) expect(Object.keys(body.errors).sort()).toEqual(Object.keys(expected.errors).sort());
  }
  return body;
}
