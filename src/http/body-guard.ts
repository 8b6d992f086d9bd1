import type { Request, RequestHandler, Response } from 'express';
import { declaresBody } from './body-reader.ts';

// What a request body may cost before the server has read it. Each route that reads a body refuses a declared
// Content-Length over its limit from the header alone, and stops reading a chunked body at the limit (the REST
// body reader and GraphQL's, with request.body_too_large). But Node keeps a connection alive by reading and
// discarding whatever body is left once the answer is sent, however large: a 413 to a declared 200 MB body still
// read 191 MB. So a body left unread when the answer is complete (refused from its header or at the limit, or
// sent to a route that reads none) is not drained: the server half-closes the connection after the answer,
// discards what is already in flight for a moment (so the client reads the answer rather than a reset, which
// would discard it: a lingering close), and then drops the connection.

/** How long, and how much, an unread body is still taken in after the answer before the connection is dropped. */
const LINGER_MS = 1_000;
const LINGER_BYTES = 4 * 1024 * 1024;

function lingeringClose(req: Request): void {
  const socket = req.socket;
  if (socket.destroyed) return;
  socket.end();
  const drop = setTimeout(() => socket.destroy(), LINGER_MS);
  drop.unref();
  let taken = 0;
  req.on('data', (chunk: Buffer) => {
    taken += chunk.length;
    if (taken > LINGER_BYTES) socket.destroy();
  });
  req.resume();
  socket.once('close', () => clearTimeout(drop));
}

export function bodyGuard(): RequestHandler {
  return (req: Request, res: Response, next) => {
    if (!declaresBody(req)) return next();
    res.once('finish', () => {
      if (!req.complete) lingeringClose(req);
    });
    next();
  };
}
