import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { declaresBody, readBodyText } from '../http/body-reader.ts';
import type { Domain } from '../domain.ts';
import { admittedContext, identifyCaller, rateHeaders } from '../http/admission.ts';
import type { RequestContext } from '../kernel/context.ts';
import { AppError } from '../kernel/errors.ts';
import { parseJsonRequest } from '../http/json-depth.ts';
import { bodyReadRefusal, mediaTypeRefusal } from '../http/request-body.ts';
import { bucketOf, type Bucket } from '../kernel/rate-limit.ts';
import { restPath } from '../kernel/resource.ts';
import type { Scope } from '../kernel/scopes.ts';
import { defaultApiVersions, VERSION_HEADER } from '../kernel/versioning.ts';

/**
 * Runs for every /api/v2 request: authenticates (keeping any failure for the matched route to raise) and takes
 * one request from the rate bucket of the key, or of the source IP when unauthenticated (kernel/admission.ts).
 * Rate-limit headers are set here so that every response, errors included, carries them.
 */
export function identify(domain: Domain): RequestHandler {
  // Resources with a bucket of their own claim the first segment of their path: webhook_ingest for every request
  // under /webhooks (endpoints, their actions, available_topics).
  const claimed = [...domain.resources.values()].flatMap(({ def }) => (def.rateBucket ? [{ prefix: `/${restPath(def).split('/')[0]}`, bucket: def.rateBucket }] : []));
  const bucketFor = (req: Request): Bucket => claimed.find(({ prefix }) => req.path === prefix || req.path.startsWith(`${prefix}/`))?.bucket ?? bucketOf(req.method);
  return async (req: Request, res: Response, next: NextFunction) => {
    req.apiVersions = domain.versions;
    try {
      const identity = await identifyCaller(domain, { authorization: req.get('authorization'), ip: req.ip ?? 'unknown', bucket: bucketFor(req) });
      req.auth = identity.principal ? { principal: identity.principal } : { error: identity.authError ?? new AppError('auth.failed') };
      if (identity.decision) res.set(rateHeaders(identity.decision));
      next(identity.rateError);
    } catch (error) {
      next(error);
    }
  };
}

/** The request context of an authenticated request holding every scope the route needs (none: any valid key). */
export function contextOf(req: Request, ...scopes: Scope[]): RequestContext {
  const identity = !req.auth ? { principal: null, authError: new AppError('auth.failed') } : 'error' in req.auth ? { principal: null, authError: req.auth.error } : { principal: req.auth.principal, authError: null };
  return admittedContext(identity, { version: req.get(VERSION_HEADER), requestId: req.requestId, versions: req.apiVersions ?? defaultApiVersions, scopes });
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

/**
 * JSON bodies: a body must be declared application/json (or +json); malformed JSON, other media types,
 * bodies over the limit (refused from Content-Length before reading, and stopped at the limit when streamed:
 * src/http/body-reader.ts) and bodies nested deeper than MAX_JSON_DEPTH (json-depth.ts) are problems with their
 * own codes.
 */
export function jsonBody(limitBytes: number): RequestHandler {
  return async (req, res, next) => {
    if (!declaresBody(req)) {
      req.body = undefined;
      return next();
    }
    const unsupported = mediaTypeRefusal(req.get('content-type'));
    if (unsupported) return next(unsupported);
    let text: string;
    try {
      text = await readBodyText(req, limitBytes);
    } catch (error) {
      return next(bodyReadRefusal(error, limitBytes) ?? error);
    }
    try {
      // An empty body reads as {} (as body-parser's did): the route then names what is missing. Too many values or
      // too deep a nesting is refused before anything walks it (src/http/json-depth.ts).
      req.body = text.length === 0 ? {} : parseJsonRequest(text);
    } catch (refusal) {
      return next(refusal);
    }
    next();
  };
}
