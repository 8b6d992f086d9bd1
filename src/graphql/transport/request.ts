import type { Request } from 'express';
import { shouldRenderGraphiQL } from 'graphql-yoga';
import { AppError } from '../../kernel/errors.ts';
import { parseJsonRequest } from '../../http/json-depth.ts';
import { bodyReadRefusal, mediaTypeRefusal } from '../../http/request-body.ts';
import { readBodyText } from '../../http/body-reader.ts';

/** What a GraphQL HTTP request asks for, read before admission: the operation, or why it cannot be read. */
export type Reading = { params: { query?: string; operationName?: string } } | { refusal: AppError } | { toYoga: 'graphiql' };

const ALLOWED_METHODS = 'GET, POST';

/**
 * Reads the operation of a request without raising anything: the page of GraphiQL (a browser's GET), the
 * query string of a GET, or the JSON body of a POST. A body is read (at most the limit) only when it is
 * declared JSON and not announced larger than the limit: its operation chooses the rate bucket, so it is read
 * before the key is checked. A failure is kept as the catalog error that admission answers in its turn.
 */
export async function readOperation(req: Request, limitBytes: number): Promise<Reading> {
  if (req.path !== '/') return { refusal: new AppError('route.not_found', `No endpoint ${req.method} ${req.originalUrl.split('?')[0]}.`) };
  if (req.method === 'GET') {
    if (shouldRenderGraphiQL({ method: 'GET', headers: { get: (name: string) => req.get(name) ?? null } } as unknown as globalThis.Request)) {
      return { toYoga: 'graphiql' };
    }
    const search = new URL(req.originalUrl, 'http://localhost').searchParams;
    for (const name of ['variables', 'extensions']) {
      const value = search.get(name);
      if (!value) continue;
      try {
        parseJsonRequest(value);
      } catch (error) {
        if (error instanceof AppError && error.code !== 'request.malformed_json') return { refusal: error };
        return { refusal: new AppError('request.malformed_json', `The ${name} parameter is not valid JSON.`) };
      }
    }
    return { params: { query: search.get('query') ?? undefined, operationName: search.get('operationName') ?? undefined } };
  }
  if (req.method !== 'POST') {
    return { refusal: new AppError('method.not_allowed', `${req.method} is not allowed on /graphql; allowed: ${ALLOWED_METHODS}.`, {}, { Allow: ALLOWED_METHODS }) };
  }
  const unsupported = mediaTypeRefusal(req.get('content-type'));
  if (unsupported) return { refusal: unsupported };
  let text: string;
  try {
    // yoga takes the body read here from req.body (the request stream is consumed): this text, or the parsed
    // body once it is known to be a request (below).
    text = req.body = await readBodyText(req, limitBytes);
  } catch (failure) {
    const refusal = bodyReadRefusal(failure, limitBytes);
    if (refusal) return { refusal };
    throw failure;
  }
  let body: unknown;
  try {
    body = parseJsonRequest(text);
  } catch (error) {
    if (error instanceof AppError) return { refusal: error };
    throw error;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return { refusal: new AppError('request.malformed_json', 'The body must be one JSON object: {"query", "variables", "operationName"}.') };
  }
  // The request's own members must have their GraphQL-over-HTTP types, else the body is malformed as a request.
  const { query, operationName, variables, extensions } = body as Record<string, unknown>;
  const isObject = (value: unknown) => value === undefined || value === null || (typeof value === 'object' && !Array.isArray(value));
  const isText = (value: unknown) => value === undefined || value === null || typeof value === 'string';
  for (const [name, ok] of [['query', isText(query)], ['operationName', isText(operationName)], ['variables', isObject(variables)], ['extensions', isObject(extensions)]] as const) {
    if (!ok) return { refusal: new AppError('request.malformed_json', `${name} must be ${name === 'variables' || name === 'extensions' ? 'a JSON object' : 'a string'}.`) };
  }
  // yoga takes the parsed body from req.body rather than parsing the text again. Its Node adapter
  // (@whatwg-node/server normalizeNodeRequest) tests `Object.keys(req.body).length`, which for a string lists
  // every character: about a second of CPU and hundreds of MB of garbage for a 1 MB body, whatever it holds.
  // Given an object with members, it answers request.json() with it as it is. `{}` (no member) stays text.
  if (Object.keys(body).length > 0) req.body = body;
  req.headers['content-type'] = 'application/json';
  return { params: { query: typeof query === 'string' ? query : undefined, operationName: typeof operationName === 'string' ? operationName : undefined } };
}
