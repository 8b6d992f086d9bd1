import type { Request } from 'express';
import getRawBody from 'raw-body';
import zlib from 'node:zlib';

// Reads a request body as UTF-8 text, REST's and GraphQL's alike, with raw-body: at most `limitBytes` (decoded),
// refused from a declared Content-Length before a byte is read, and stopped at the limit when it streams. Unlike
// body-parser, which reads a refused body to its end before it reports the refusal (an endless chunked body was
// never answered), it leaves the rest unread: src/http/body-guard.ts closes the connection after the answer.
// Failures carry body-parser's error types and statuses (src/http/request-body.ts turns them into problems).

const decoders: Record<string, () => zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress> = {
  gzip: () => zlib.createGunzip(),
  'x-gzip': () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
};

function failure(status: number, type: string, message: string): Error {
  return Object.assign(new Error(message), { status, type, expose: true });
}

/** The charset parameter of a Content-Type, lowercased and unquoted; null when absent. */
function charsetOf(contentType: string | undefined): string | null {
  const match = /;\s*charset\s*=\s*("?)([^";\s]*)\1/i.exec(contentType ?? '');
  return match ? match[2]!.toLowerCase() : null;
}

/** Whether the request carries a body at all: a Content-Length above 0, or a streamed (chunked) one. */
export function declaresBody(req: Request): boolean {
  return Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;
}

export async function readBodyText(req: Request, limitBytes: number): Promise<string> {
  const charset = charsetOf(req.get('content-type')) ?? 'utf-8';
  if (charset !== 'utf-8' && charset !== 'utf8') throw failure(415, 'charset.unsupported', `unsupported charset "${charset.toUpperCase()}"`);
  const declared = req.get('content-length');
  if (declared !== undefined && Number(declared) > limitBytes) throw failure(413, 'entity.too.large', 'request entity too large');
  const coding = (req.get('content-encoding') ?? 'identity').trim().toLowerCase();
  if (coding === 'identity') return getRawBody(req, { length: declared, limit: limitBytes, encoding: 'utf-8' });
  const decoder = decoders[coding];
  if (!decoder) throw failure(415, 'encoding.unsupported', `unsupported content encoding "${coding}"`);
  const stream = decoder();
  req.pipe(stream);
  try {
    return await getRawBody(stream, { limit: limitBytes, encoding: 'utf-8' });
  } catch (error) {
    req.unpipe(stream);
    stream.destroy();
    // A body that does not decode is the client's fault (zlib's errors carry no HTTP status).
    if (typeof (error as { status?: unknown }).status !== 'number') throw failure(400, 'encoding.invalid', 'the body does not decode');
    throw error;
  }
}
