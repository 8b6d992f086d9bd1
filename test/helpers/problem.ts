import { expect } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { errorCatalog, type ErrorCode } from '../../src/kernel/errors.ts';
import type { ApiResponse } from './http.ts';

/** The default base of problem `type` and `doc_url` links (startTestApp does not override ERRORS_URL). */
export const ERRORS_URL = loadConfig({}).ERRORS_URL;

/** The spec's code grammar: <domain>.<verb_or_state>. */
export const CODE_PATTERN = /^[a-z_]+(\.[a-z_]+)+$/;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Top-level fields the spec lets some codes add to the envelope; anything else is a leak. */
const ALLOWED_EXTRAS = new Set(['errors', 'required_scope', 'granted_scopes', 'max_limit', 'reason']);
const ENVELOPE = ['type', 'title', 'status', 'code', 'detail', 'instance', 'request_id', 'doc_url'];

export interface ProblemOptions {
  /** The request path (without query string) the problem must name in `instance`. */
  instance?: string;
  errorsUrl?: string;
}

/**
 * Asserts that a response is the spec's problem+json for `code`: status, Content-Type, every envelope field
 * (type, title, status, code, detail string|null, instance, request_id = X-Request-Id, doc_url), the code
 * grammar, and no top-level fields beyond the documented extras. Returns the body for further checks.
 */
export function expectProblem(res: ApiResponse, status: number, code: ErrorCode | string, options: ProblemOptions = {}): Record<string, any> {
  const errorsUrl = options.errorsUrl ?? ERRORS_URL;
  const context = `${res.status} ${res.text.slice(0, 500)}`;
  expect(res.status, context).toBe(status);
  expect(res.headers.get('content-type') ?? '', context).toMatch(/^application\/problem\+json(;|$)/);
  const body = res.body as Record<string, any>;
  expect(body, context).toBeTypeOf('object');
  expect(body, context).not.toBeNull();
  for (const field of ENVELOPE) expect(Object.keys(body), `${field} missing: ${context}`).toContain(field);
  expect(body.code, context).toBe(code);
  expect(body.code).toMatch(CODE_PATTERN);
  expect(body.status).toBe(status);
  expect(body.type).toBe(`${errorsUrl}/${code}`);
  expect(body.doc_url).toBe(`${errorsUrl}/${code.replace(/[._]/g, '-')}`);
  expect(body.title).toBeTypeOf('string');
  expect(body.title.length).toBeGreaterThan(0);
  const catalogued = (errorCatalog as Record<string, { title: string; status: number }>)[code];
  if (catalogued) {
    expect(body.title).toBe(catalogued.title);
    expect(catalogued.status).toBe(status);
  }
  expect(body.detail === null || typeof body.detail === 'string', `detail must be string|null: ${context}`).toBe(true);
  expect(body.instance).toBeTypeOf('string');
  if (options.instance !== undefined) expect(body.instance).toBe(options.instance);
  else expect(body.instance).toMatch(/^\/api\/v2(\/|$)/);
  const requestId = res.headers.get('x-request-id');
  expect(requestId, 'X-Request-Id response header').toBeTruthy();
  expect(body.request_id).toBe(requestId);
  const extras = Object.keys(body).filter((k) => !ENVELOPE.includes(k));
  for (const extra of extras) expect(ALLOWED_EXTRAS.has(extra), `unexpected problem field ${extra}`).toBe(true);
  return body;
}

export function isUuid(value: unknown): boolean {
  return typeof value === 'string' && UUID.test(value);
}
