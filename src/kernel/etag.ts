import { AppError } from './errors.ts';

export interface Versioned {
  updated_at: Date;
  lock_version: number;
}

/** Weak ETag W/"<updated_at epoch ms>-<lock_version>". */
export function etagOf(record: Versioned): string {
  return `W/"${record.updated_at.getTime()}-${record.lock_version}"`;
}

export interface ExpectedVersion {
  updatedAt: Date;
  lockVersion: number;
}

/**
 * One of our ETags as If-Match carries it: weak or strong, surrounding whitespace ignored. Any other value can never
 * match the current ETag (412 once the record is found); the OpenAPI document states it as the header's pattern.
 */
export const IF_MATCH_ETAG = /^\s*(?:W\/)?"(\d{1,16})-(\d{1,10})"\s*$/;

/**
 * Parses If-Match. Absent: 428 precondition.required. Anything that is not one of our ETags can never match the
 * current one: null, refused with 412 precondition.failed once the record is found (the spec's order is
 * 428 -> 404 -> 412: a malformed If-Match on a missing record is 404). Weak and strong spellings are accepted.
 */
export function parseIfMatch(header: string | undefined | null): ExpectedVersion | null {
  if (header === undefined || header === null || header.trim() === '') {
    throw new AppError('precondition.required', 'This request needs an If-Match header holding the ETag of a prior GET.');
  }
  const match = IF_MATCH_ETAG.exec(header);
  if (!match) return null;
  return { updatedAt: new Date(Number(match[1])), lockVersion: Number(match[2]) };
}

/** Early 412 when the record already differs from If-Match; the compare-and-set statement stays the guarantee. */
export function checkExpected(existing: { lock_version: number; updated_at: Date }, expected: ExpectedVersion | null): asserts expected is ExpectedVersion {
  if (!expected || existing.lock_version !== expected.lockVersion || existing.updated_at.getTime() !== expected.updatedAt.getTime()) {
    const current = etagOf(existing);
    const error = new AppError('precondition.failed', `If-Match does not match the current ETag ${current}`);
    error.values = { currentEtag: current };
    throw error;
  }
}

/** The updated_at of a write: now, but always after the previous one (two writes in one millisecond), so ETags never repeat. */
export function nextUpdatedAt(now: Date, previous: Date): Date {
  return new Date(Math.max(now.getTime(), previous.getTime() + 1));
}
