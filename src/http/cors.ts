import cors from 'cors';
import type { RequestHandler } from 'express';
import { VERSION_HEADER } from '../kernel/versioning.ts';

// CORS on /api/v2 and /graphql, for browser tools and apps on other origins. Origins come from CORS_ORIGINS
// (default none: no Access-Control-* headers at all, and a browser on another origin is refused by the browser).
// Credentials are never allowed: the key travels in Authorization, which a page sets itself, never in a cookie.
// A preflight (OPTIONS with Origin and Access-Control-Request-Method) is answered here with 204, before the
// key is checked (a browser sends none on a preflight); an origin not allowed gets a bare 204 (no
// Access-Control-* headers), which the browser treats as a refusal. Other OPTIONS requests go on to the routers,
// which answer 405 as before.

const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'If-Match', 'Idempotency-Key', VERSION_HEADER, 'X-Request-Id'];
const CORS_EXPOSED_HEADERS = ['ETag', 'Link', 'Location', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', 'X-Request-Id'];
const CORS_METHODS = ['GET', 'POST', 'PATCH', 'DELETE'];
/** How long a browser may cache a preflight answer, in seconds. */
const PREFLIGHT_MAX_AGE = 600;

export function corsMiddleware(origins: readonly string[]): RequestHandler {
  const anyOrigin = origins.includes('*');
  const handler = cors({
    origin: anyOrigin ? '*' : [...origins],
    methods: CORS_METHODS,
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    credentials: false,
    maxAge: PREFLIGHT_MAX_AGE,
    optionsSuccessStatus: 204,
  });
  const allowed = (origin: string) => anyOrigin || origins.includes(origin);
  return (req, res, next) => {
    const origin = req.headers.origin;
    const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
    // Not a cross-origin request (no Origin), or an OPTIONS that is not a preflight: nothing to add.
    if (!origin || (req.method === 'OPTIONS' && !preflight)) return next();
    if (allowed(origin)) return handler(req, res, next);
    res.vary('Origin');
    if (!preflight) return next();
    res.status(204).end();
  };
}
