import { expect } from 'vitest';
import type { ApiResponse } from './http.ts';

export interface ProblemExpectation {
  status: number;
  code: string;
  /** The detail must contain this text (or match this pattern). */
  detail?: string | RegExp;
  /** validation.failed: each named field must be in `errors`; an array value must equal its messages exactly. */
  errors?: Record<string, true | string[] | RegExp>;
  /** When set, `errors` must hold exactly these field names. */
  onlyErrors?: boolean;
}

/**
 * Asserts an RFC 9457 problem+json answer with the spec's full envelope, its status and code, and the parts of
 * detail / errors that name what went wrong. Returns the body for further checks.
 */
export function expectProblem(res: ApiResponse, expected: ProblemExpectation): Record<string, any> {
  const summary = `${res.status} ${res.text.slice(0, 600)}`;
  expect(res.status, summary).toBe(expected.status);
  expect(res.headers.get('content-type') ?? '', summary).toMatch(/^application\/problem\+json/);
  const body = res.body as Record<string, any>;
  expect(body, summary).toBeTypeOf('object');
  expect(body.code, summary).toBe(expected.code);
  expect(body.status).toBe(expected.status);
  expect(body.code).toMatch(/^[a-z_]+(\.[a-z_]+)+$/);
  expect(body.type).toMatch(new RegExp(`/${expected.code.replace(/\./g, '\\.')}$`));
  expect(body.title).toBeTypeOf('string');
  expect(body.title.length).toBeGreaterThan(0);
  expect(body.doc_url).toMatch(new RegExp(`/${expected.code.replace(/[._]/g, '-')}$`));
  expect(body.instance).toBeTypeOf('string');
  expect(body.instance.startsWith('/api/v2/')).toBe(true);
  expect(body.instance).not.toContain('?');
  expect(body.request_id).toBeTypeOf('string');
  expect(body.request_id).toBe(res.headers.get('x-request-id'));
  expect('detail' in body).toBe(true);
  if (expected.detail !== undefined) {
    expect(body.detail, summary).toBeTypeOf('string');
    if (typeof expected.detail === 'string') expect(body.detail, summary).toContain(expected.detail);
    else expect(body.detail, summary).toMatch(expected.detail);
  }
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
