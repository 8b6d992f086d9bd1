import type { NextFunction, Request, Response } from 'express';
import { newId } from '../kernel/ids.ts';

/**
 * The X-Request-Id values taken as the request's id. Any other value is not refused: it is ignored and an id is
 * generated, as when the header is absent (the OpenAPI document says so; it states no pattern, which would read as
 * a refusal).
 */
export const ACCEPTED_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Accepts a sane X-Request-Id or makes one; echoes it on the response. */
export function requestId(req: Request, res: Response, next: NextFunction): void {
  const given = req.get('x-request-id');
  req.requestId = given && ACCEPTED_REQUEST_ID.test(given) ? given : newId();
  res.setHeader('X-Request-Id', req.requestId);
  next();
}
