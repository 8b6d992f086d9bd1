import { AppError } from '../kernel/errors.ts';

// The problems of a JSON request body, the same on every endpoint (REST, GraphQL over HTTP): the media type, the
// size limit and what the body reader reports (src/http/body-reader.ts, with body-parser's error types).

const JSON_TYPE = /^application\/(json|[a-z0-9.+-]+\+json)$/;

/** The media type of a Content-Type header, lowercased, without parameters. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

/** 415 unless the body is declared application/json or +json. */
export function mediaTypeRefusal(contentType: string | undefined): AppError | null {
  const type = mediaType(contentType);
  return JSON_TYPE.test(type) ? null : new AppError('request.unsupported_media_type', `Send the body as application/json (got ${type || 'no Content-Type'}).`);
}

export function bodyTooLarge(limitBytes: number): AppError {
  return new AppError('request.body_too_large', `The body exceeds ${limitBytes} bytes.`);
}

/**
 * The catalog problem of a failure of the body reader (src/http/body-reader.ts): too large, not JSON, not UTF-8, or another
 * client-side failure (undecodable Content-Encoding, length mismatch, aborted upload); null for a server fault.
 */
export function bodyReadRefusal(error: unknown, limitBytes: number): AppError | null {
  const e = error as { type?: string; status?: number };
  if (e.type === 'entity.too.large') return bodyTooLarge(limitBytes);
  if (e.type === 'entity.parse.failed') return new AppError('request.malformed_json', 'The body is not valid JSON.');
  if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') return new AppError('request.unsupported_media_type', 'The body must be UTF-8 JSON.');
  if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) return new AppError('request.malformed_json', 'The body could not be read as JSON.');
  return null;
}
