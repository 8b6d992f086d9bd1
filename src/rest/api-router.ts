import express, { type Request, type Response, type Router } from 'express';
import type { Logger } from 'pino';
import { type Domain, describeCaller, lookupKinds, type LookupKind } from '../domain.ts';
import { AppError } from '../kernel/errors.ts';
import type { ListResult } from '../kernel/listing.ts';
import type { Single } from '../kernel/resource-service.ts';
import type { IdempotentOutcome, IdempotentRecords } from '../kernel/idempotency.ts';
import type { Scope } from '../kernel/scopes.ts';
import type { ActionDefinition, ActionRecords } from '../kernel/action.ts';
import { bodyKeyOf, restPath, serves } from '../kernel/resource.ts';
import { nestedScopes, parentsOf } from '../kernel/nesting.ts';
import { authorize, ctx, identify, jsonBody } from './gate.ts';
import { sendProblem } from '../http/problem.ts';
import { actionInputOf } from './action-input.ts';
import { recordFromBody } from './record-body.ts';
import { EncodedBody } from '../http/encoded-body.ts';
import { listRequestOf, lookupQueryOf, systemOptionsQueryOf } from './list-request.ts';
import { linkedSingle, withFileLinks } from './file-links.ts';
import { registerAttachmentRoutes, registerFileDownload } from './attachments.ts';

/** The query string of the request target, never read through a URL parser that could refuse the target. */
function searchOf(req: Request): URLSearchParams {
  const target = req.originalUrl.split('#')[0];
  const at = target.indexOf('?');
  return new URLSearchParams(at === -1 ? '' : target.slice(at + 1));
}

export function queryEntries(req: Request): [string, string][] {
  return [...searchOf(req).entries()];
}

function sendSingle(res: Response, single: Single, status = 200): void {
  res.setHeader('ETag', single.etag);
  res.status(status).json({ data: single.record });
}


/** A REST answer made whole before it is sent: what an idempotent request answers, the first time and each replay. */
interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * The answer of an idempotent request, rendered from the records the first run stored (the same bytes each time);
 * a replay says so (Idempotent-Replayed). A key stored before the store kept records replays the bytes it stored.
 */
function sendIdempotent(res: Response, outcome: IdempotentOutcome, answer: (records: IdempotentRecords) => Answer): void {
  if (outcome.replayed) res.setHeader('Idempotent-Replayed', 'true');
  sendAnswer(res, 'legacy' in outcome ? outcome.legacy : answer(outcome.records));
}

function sendAnswer(res: Response, response: Answer): void {
  for (const [name, value] of Object.entries(response.headers)) res.setHeader(name, value);
  res.status(response.status).type('application/json; charset=utf-8').send(response.body);
}

/**
 * The list answer: the page, has_more and next_cursor, the cursor of the next page (null on the last). When there
 * is a next page, its reference is also in Link (spec: `<next_url>; rel="next"`): the same path and parameters
 * without sort (continuation pages keep the cursor's order) and with that cursor. It is absolute on the configured
 * PUBLIC_URL, else a relative reference (RFC 8288 allows one); never built from the request's Host header or an
 * absolute request target, which the client chooses.
 */
function sendList(req: Request, res: Response, result: ListResult<unknown>, publicUrl: string | undefined): void {
  if (result.nextCursor) {
    const search = searchOf(req);
    search.delete('sort');
    search.set('cursor', result.nextCursor);
    res.setHeader('Link', `<${publicUrl ?? ''}${req.baseUrl}${req.path}?${search.toString()}>; rel="next"`);
  }
  res.json({ data: result.data, has_more: result.hasMore, next_cursor: result.nextCursor });
}

/** The answer of a list that is never paginated (lookups, system options, action lists): all of it, no next page. */
function sendUnpaginated(res: Response, data: unknown): void {
  res.json({ data, has_more: false, next_cursor: null });
}

/** Runs a declared action with the request's path parameters and the input its body (or query string) carries. */
function runAction(domain: Domain, req: Request, res: Response, action: ActionDefinition, context = ctx(res)): Promise<unknown> {
  const params = Object.fromEntries(Object.keys(action.params ?? {}).map((name) => [name, String(req.params[name])]));
  return action.run({ domain, ctx: context, id: String(req.params.id), params, input: actionInputOf(action, req.body, action.query ? queryEntries(req) : []) });
}

/** The answer of an action whose response is `records`: the records by key, and Location of the located one. */
function recordsAnswer(domain: Domain, req: Request, action: ActionDefinition, records: ActionRecords): Answer {
  const response = action.response;
  if (!('records' in response)) throw new Error(`${action.name} does not answer records`);
  const located = response.location ? records[response.location] : undefined;
  const headers: Record<string, string> = {};
  if (located) headers.Location = `${req.baseUrl}/${restPath(domain.resource(response.records[response.location!]).def)}/${located.record.id as string}`;
  const body = JSON.stringify({ data: Object.fromEntries(Object.entries(records).map(([key, single]) => [key, single.record])) });
  return { status: response.status, headers, body };
}

/** The answer of a declared action, as its response declares it. */
function sendAction(domain: Domain, req: Request, res: Response, action: ActionDefinition, result: unknown): void {
  const response = action.response;
  if (response.status === 204) {
    res.status(204).end();
  } else if ('records' in response) {
    sendAnswer(res, recordsAnswer(domain, req, action, result as ActionRecords));
  } else if ('shape' in response) {
    if (response.location) res.setHeader('Location', `${req.baseUrl}${response.location(result as Record<string, unknown>)}`);
    res.status(response.status).json({ data: result });
  } else {
    sendUnpaginated(res, result);
  }
}

/** The /api/v2 router: routes assembled from the resource declarations plus identity, lookups and OpenAPI. */
/** The settings the REST router reads (the app's config: src/config.ts). */
export interface RestConfig {
  BODY_LIMIT_BYTES: number;
  PUBLIC_URL?: string;
  ERRORS_URL: string;
}

/** The documents the router serves, built by the app on first request (they describe more than REST). */
export interface ServedDocuments {
  openapi: () => object;
  asyncapi: () => Promise<object>;
}

/** How the router registers a route (and its methods for 405's Allow). */
export type RegisterRoute = (method: 'get' | 'post' | 'put' | 'patch' | 'delete', path: string, ...handlers: express.RequestHandler[]) => void;

export function buildApiRouter(domain: Domain, config: RestConfig, logger: Logger, documents: ServedDocuments): Router {
  const router = express.Router({ caseSensitive: true });
  const body = jsonBody(config.BODY_LIMIT_BYTES);
  const routes: { pattern: RegExp; methods: string[] }[] = [];
  const register = (method: 'get' | 'post' | 'put' | 'patch' | 'delete', path: string, ...handlers: express.RequestHandler[]) => {
    const pattern = new RegExp(`^${path.replace(/:[a-z_]+/g, '[^/]+')}/?$`);
    const known = routes.find((r) => r.pattern.source === pattern.source);
    if (known) known.methods.push(method.toUpperCase());
    else routes.push({ pattern, methods: [method.toUpperCase()] });
    router[method](path, ...handlers);
  };

  // /me answers Cache-Control: private, no-store always (spec), its 401/403/429 problems included, so the
  // header is set before the caller is identified.
  router.use((req, res, next) => {
    if (/^\/me\/?$/.test(req.path)) res.setHeader('Cache-Control', 'private, no-store');
    next();
  });
  router.use(identify(domain));

  register('get', '/me', authorize(), (_req, res) => {
    res.json({ data: describeCaller(ctx(res)) });
  });

  for (const kind of Object.keys(lookupKinds) as LookupKind[]) {
    register('get', `/${kind}`, authorize(), async (req, res) => {
      sendUnpaginated(res, (await domain.lookups.list(ctx(res), kind, lookupQueryOf(queryEntries(req), kind))).data);
    });
  }

  register('get', '/webhooks/available_topics', authorize('webhooks:read'), (_req, res) => {
    sendUnpaginated(res, domain.webhooks.availableTopics(ctx(res)));
  });

  // The change feed: any valid key; what it lists depends on the key's read scopes (src/events/event-feed.service.ts).
  register('get', '/events', authorize(), async (req, res) => {
    sendList(req, res, await domain.eventFeed.list(ctx(res), listRequestOf(queryEntries(req))), config.PUBLIC_URL);
  });

  register('get', '/system_options', authorize(), async (req, res) => {
    sendUnpaginated(res, (await domain.lookups.systemOptions(systemOptionsQueryOf(queryEntries(req)))).data);
  });

  const definitions = [...domain.resources.values()].map((service) => service.def);
  for (const service of domain.resources.values()) {
    const { scope } = service.def;
    const plural = restPath(service.def);
    // A nested resource's record needs its parent's scopes, known once it is found: the service checks them.
    // (404 first, then 403); writing one needs `<scope>:write` as well, checked here.
    const read = service.def.nested ? [] : [`${scope}:read` as Scope];
    const write = [`${scope}:write` as Scope];
    if (serves(service.def, 'list')) {
      register('get', `/${plural}`, authorize(...read), async (req, res) => {
        const page = await service.list(ctx(res), listRequestOf(queryEntries(req)));
        const data = await withFileLinks(page.data.map((single) => single.record), () => domain.attachments.signer());
        sendList(req, res, { ...page, data }, config.PUBLIC_URL);
      });
    }
    if (serves(service.def, 'create')) {
      register('post', `/${plural}`, authorize(...write), body, async (req, res) => {
        if (service.def.idempotentCreate) {
          // A financial create: once per Idempotency-Key; the record is stored with the key and answered from it.
          // The path as routed: /invoices and /invoices/ are one endpoint.
          const request = { key: req.get('idempotency-key'), method: req.method, path: `${req.baseUrl}/${plural}`, body: req.body };
          const answer = (records: IdempotentRecords): Answer => {
            const single = records[service.def.name];
            return {
              status: 201,
              headers: { ETag: single.etag, Location: `${req.baseUrl}/${plural}/${single.record.id as string}` },
              body: JSON.stringify({ data: single.record }),
            };
          };
          sendIdempotent(res, await domain.idempotency.run(ctx(res), request, (scoped) => service.create(scoped, recordFromBody(req.body, bodyKeyOf(service.def)))), answer);
          return;
        }
        const single = await service.create(ctx(res), recordFromBody(req.body, bodyKeyOf(service.def)));
        res.setHeader('Location', `${req.baseUrl}/${plural}/${single.record.id as string}`);
        sendSingle(res, single, 201);
      });
    }
    if (serves(service.def, 'get')) {
      register('get', `/${plural}/:id`, authorize(...read), async (req, res) => {
        sendSingle(res, await linkedSingle(domain, await service.get(ctx(res), String(req.params.id))));
      });
    }
    if (serves(service.def, 'update')) {
      register('patch', `/${plural}/:id`, authorize(...write), body, async (req, res) => {
        // The body is read once the record is found and If-Match matches it (404 and 412 come first).
        const updated = await service.update(ctx(res), String(req.params.id), req.get('if-match'), () => recordFromBody(req.body, bodyKeyOf(service.def)));
        sendSingle(res, await linkedSingle(domain, updated));
      });
    }
    if (serves(service.def, 'delete')) {
      register('delete', `/${plural}/:id`, authorize(...write), async (req, res) => {
        await service.remove(ctx(res), String(req.params.id), req.get('if-match'));
        res.status(204).end();
      });
    }
    // Attachment custom fields: PUT (multipart) and DELETE on the record's custom_fields/{field_id} (src/rest/attachments.ts).
    if (service.def.conventions.customFields && serves(service.def, 'update')) registerAttachmentRoutes(register, domain, config, service);
    // A nested resource (notes): its list and create under each parent's record, with the parent's read scope
    // (and the resource's write scope to create); the parent is named by the path (src/kernel/nesting.ts).
    for (const { type, parent } of parentsOf(service.def, definitions)) {
      const under = `/${restPath(parent)}/:id/${plural}`;
      register('get', under, authorize(...nestedScopes(service.def, parent, 'read')), async (req, res) => {
        const page = await service.listUnder(ctx(res), type, String(req.params.id), listRequestOf(queryEntries(req)));
        sendList(req, res, { ...page, data: page.data.map((single) => single.record) }, config.PUBLIC_URL);
      });
      register('post', under, authorize(...nestedScopes(service.def, parent, 'write')), body, async (req, res) => {
        const single = await service.createUnder(ctx(res), type, String(req.params.id), recordFromBody(req.body, bodyKeyOf(service.def)));
        res.setHeader('Location', `${req.baseUrl}/${plural}/${single.record.id as string}`);
        sendSingle(res, single, 201);
      });
    }
    for (const action of service.def.actions ?? []) {
      const path = `/${plural}/:id${action.path.replace(/\{([a-z_]+)\}/g, ':$1')}`;
      const parsers = action.method === 'post' || action.method === 'patch' ? [body] : [];
      register(action.method, path, authorize(...action.scopes), ...parsers, async (req, res) => {
        if (action.idempotent) {
          // A financial create: once per Idempotency-Key, as a resource's POST (the path as routed, without a trailing slash).
          const request = { key: req.get('idempotency-key'), method: req.method, path: `${req.baseUrl}${req.path.replace(/\/$/, '')}`, body: req.body };
          const outcome = await domain.idempotency.run(ctx(res), request, (scoped) => runAction(domain, req, res, action, scoped));
          sendIdempotent(res, outcome, (records) => recordsAnswer(domain, req, action, records));
          return;
        }
        sendAction(domain, req, res, action, await runAction(domain, req, res, action));
      });
    }
  }

  // Attachment files: by a signed link (no key) or with the key (the read scope of the record's resource).
  registerFileDownload(register, domain);

  // The document is built once and kept in each encoding (300 KB of JSON, 30 KB compressed).
  const document = new EncodedBody(async () => Buffer.from(JSON.stringify(documents.openapi())));
  register('get', '/openapi.json', (req, res, next) => {
    document.send(req, res, 'application/json; charset=utf-8').catch(next);
  });
  // The AsyncAPI document of the events (webhooks and GraphQL subscriptions), open and kept the same way.
  const asyncApi = new EncodedBody(async () => Buffer.from(JSON.stringify(await documents.asyncapi())));
  register('get', '/asyncapi.json', (req, res, next) => {
    asyncApi.send(req, res, 'application/json; charset=utf-8').catch(next);
  });


  router.use((req, res, next) => {
    const path = req.path;
    const route = routes.find((r) => r.pattern.test(path));
    if (route) {
      res.setHeader('Allow', route.methods.join(', '));
      return next(new AppError('method.not_allowed', `${req.method} is not allowed on ${path}; allowed: ${route.methods.join(', ')}.`));
    }
    next(new AppError('route.not_found', `No endpoint ${req.method} ${req.baseUrl}${path}.`));
  });

  router.use((error: unknown, req: Request, res: Response, _next: express.NextFunction) => {
    // A record path whose id is not valid percent-encoding (the router fails to decode it): a malformed id.
    if (error instanceof URIError) error = new AppError('resource.not_found', 'No record has this id.');
    sendProblem(req, res, error, config.ERRORS_URL, logger);
  });
  return router;
}
