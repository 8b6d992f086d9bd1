import { codeOf, KeyRefused, messageOf } from './errors.ts';
import { GRAPHQL_PATH, type Operation } from './operations.ts';
import { board } from './store.ts';
import type { GraphQLResponse } from './types.ts';

// GraphQL over HTTP: POST /graphql with the key as Authorization (never a cookie, never cached).

/**
 * Runs an operation. Throws KeyRefused when the server refused the key, an Error when there is no data to use
 * (no GraphQL result, or errors without data); a result with both data and errors is returned as it is.
 */
export async function graphql<Variables, Data>(operation: Operation<Variables, Data>, variables: NoInfer<Variables>): Promise<GraphQLResponse<Data>> {
  const response = await fetch(GRAPHQL_PATH, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', authorization: 'Bearer ' + board.key },
    body: JSON.stringify({ query: operation.query, variables }),
    credentials: 'omit',
    cache: 'no-store',
  });
  let body: GraphQLResponse<Data> | null;
  try {
    body = (await response.json()) as GraphQLResponse<Data> | null;
  } catch {
    throw new Error('The server answered ' + response.status + ' without a GraphQL result.');
  }
  const code = codeOf(body?.errors) || body?.code;
  if (response.status === 401 || (code && /^auth(entication)?\./.test(code))) throw new KeyRefused(messageOf(body?.errors) || body?.detail || 'The key was refused.');
  if (!body || (!body.data && body.errors)) throw new Error(messageOf(body?.errors) || body?.detail || 'HTTP ' + response.status);
  return body;
}
