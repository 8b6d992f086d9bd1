import type { NextFunction, Request, Response } from 'express';
import { newId } from '../kernel/ids.ts';

const acceptable = /^[A-Za-z0-9._:\-]{1,128}$/;

/** Accepts a sane X-Request-Id or makes one; echoes it on the response. */
export function requestId(req: Request, res: Response, next: NextFunction): void {
  const given = req.get('x-request-id');
  req.requestId = given && acceptable.test(given) ? given : newId();
  res.setHeader('X-Request-Id', req.requestId);
  next();
}
