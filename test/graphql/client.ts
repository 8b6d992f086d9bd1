/**
 * A GraphQL-over-HTTP client for black-box tests: POST /graphql, JSON in, parsed JSON and headers out. Every
 * answer must report extensions.cost (the limits of docs/graphql-limits.md); the client checks it is there and
 * hands it out as `cost`, beside the body without it, so tests compare data and errors alone.
 */
export interface Cost {
  requestedQueryCost: number | null;
  actualQueryCost: number | null;
  throttleStatus: { maximumAvailable: number; currentlyAvailable: number; restoreRate: number; resetSeconds: number } | null;
}

export interface GraphqlResponse<T = any> {
  status: number;
  headers: Headers;
  body: { data?: T; errors?: { message: string; path?: string[]; extensions?: Record<string, any> }[]; extensions?: Record<string, unknown> };
  cost: Cost;
}

/** Moves extensions.cost out of a GraphQL answer (an error when it is missing). */
export function withoutCost(body: Record<string, any>): { body: GraphqlResponse['body']; cost: Cost } {
  const cost = body?.extensions?.cost as Cost | undefined;
  if (!cost || !('requestedQueryCost' in cost) || !('throttleStatus' in cost)) {
    throw new Error(`the answer has no extensions.cost: ${JSON.stringify(body).slice(0, 300)}`);
  }
  const { cost: _cost, ...otherExtensions } = body.extensions as Record<string, unknown>;
  const { extensions: _extensions, ...rest } = body;
  return { body: Object.keys(otherExtensions).length > 0 ? { ...rest, extensions: otherExtensions } : rest, cost };
}

export interface GraphqlOptions {
  token?: string | null;
  headers?: Record<string, string>;
  operationName?: string;
}

export function graphqlClient(baseUrl: string, defaultToken?: string) {
  return async function gql<T = any>(query: string, variables?: Record<string, unknown>, options: GraphqlOptions = {}): Promise<GraphqlResponse<T>> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', ...(options.headers ?? {}) };
    const token = options.token === undefined ? defaultToken : options.token;
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await fetch(`${baseUrl}/graphql`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ query, variables, operationName: options.operationName }),
    });
    return { status: res.status, headers: res.headers, ...withoutCost(await res.json()) };
  };
}

export type Gql = ReturnType<typeof graphqlClient>;

/** The catalog code of the first error. */
export function codeOf(response: GraphqlResponse): string | undefined {
  return response.body.errors?.[0]?.extensions?.code;
}
