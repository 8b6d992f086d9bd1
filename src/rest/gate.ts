import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Domain } from '../domain.ts';
import { identifyCaller } from '../kernel/admission.ts';
import { requireScope } from '../kernel/auth.ts';
import type { RequestContext } from '../kernel/context.ts';
import { AppError } from '../kernel/errors.ts';
import { assertJsonDepth } from '../kernel/json-depth.ts';
import { bucketOf, type RateDecision } from '../kernel/rate-limit.ts';
import type { Scope } from '../kernel/scopes.ts';
import { defaultApiVersions, VERSION_HEADER } from '../kernel/versioning.ts';

function setRateHeaders(res: Response, decision: RateDecision): void {
  res.setHeader('RateLimit-Limit', String(decision.limit));
  res.setHeader('RateLimit-Remaining', String(decision.remaining));
  res.setHeader('RateLimit-Reset', String(decision.resetSeconds));
}

/**
 * Runs for every /api/v2 request: authenticates (keeping any failure for the matched route to raise) and takes
 * one request from the rate bucket of the key, or of the source IP when unauthenticated (kernel/admission.ts).
 * Rate-limit headers are set here so that every response, errors included, carries them.
 */
export function identify(domain: Domain): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    req.apiVersions = domain.versions;
    try {
      const identity = await identifyCaller(domain, { authorization: req.get('authorization'), ip: req.ip ?? 'unknown', bucket: bucketOf(req.method) });
      req.auth = identity.principal ? { principal: identity.principal } : { error: identity.authError ?? new AppError('auth.failed') };
      if (identity.decision) setRateHeaders(res, identity.decision);
      next(identity.rateError);
    } catch (error) {
      next(error);
    }
  };
}

/** The request context of an authenticated request holding every scope the route needs (none: any valid key). */
export function contextOf(req: Request, ...scopes: Scope[]): RequestContext {
  if (!req.auth) throw new AppError('auth.failed');
  if ('error' in req.auth) throw req.auth.error;
  const { principal } = req.auth;
  const apiVersion = (req.apiVersions ?? defaultApiVersions).resolve(req.get(VERSION_HEADER), principal.key.apiVersion);
  for (const scope of scopes) requireScope(principal, scope);
  return { requestId: req.requestId, principal, apiVersion };
}

/**
 * Route guard: raises the authentication, version and scope problems before anything else of the route runs
 * (body parsing included) and keeps the context for the handler (see ctx()).
 */
export function authorize(...scopes: Scope[]): RequestHandler {
  return (req, res, next) => {
    res.locals.ctx = contextOf(req, ...scopes);
    next();
  };
}

/** The context authorize() established for this request. */
export function ctx(res: Response): RequestContext {
  return res.locals.ctx as RequestContext;
}

const jsonParser = (limit: number) =>
  express.json({ limit, type: () => true, strict: false });

/**
 * JSON bodies: a body must be declared application/json (or +json); malformed JSON, other media types,
 * bodies over the limit and bodies nested deeper than MAX_JSON_DEPTH (json-depth.ts) are problems with their
 * own codes.
 */
export function jsonBody(limitBytes: number): RequestHandler {
  const parse = jsonParser(limitBytes);
  return (req, res, next) => {
    const hasBody = Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;
    if (!hasBody) {
      req.body = undefined;
      return next();
    }
    const type = (req.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
    if (type !== 'application/json' && !/^application\/[a-z0-9.+-]+\+json$/.test(type)) {
      return next(new AppError('request.unsupported_media_type', `Send the body as application/json (got ${type || 'no Content-Type'}).`));
    }
    parse(req, res, (error?: unknown) => {
      if (!error) {
        // JSON.parse takes any nesting; what walks the value later might not (src/kernel/json-depth.ts).
        try {
          assertJsonDepth(req.body);
        } catch (tooDeep) {
          req.body = undefined;
          return next(tooDeep);
        }
        return next();
      }
      const e = error as { type?: string; limit?: number };
      if (e.type === 'entity.too.large') return next(new AppError('request.body_too_large', `The body exceeds ${limitBytes} bytes.`));
      if (e.type === 'entity.parse.failed') return next(new AppError('request.malformed_json', 'The body is not valid JSON.'));
      if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') {
        return next(new AppError('request.unsupported_media_type', 'The body must be UTF-8 JSON.'));
      }
      // Other client-side body failures (undecodable Content-Encoding, length mismatch, aborted upload).
      const status = (error as { status?: number }).status;
      if (typeof status === 'number' && status >= 400 && status < 500) {
        return next(new AppError('request.malformed_json', 'The body could not be read as JSON.'));
      }
      return next(error);
    });
  };
}
