/** A GraphQL-over-HTTP client for black-box tests: POST /graphql, JSON in, parsed JSON and headers out. */
export interface GraphqlResponse<T = any> {
  status: number;
  headers: Headers;
  body: { data?: T; errors?: { message: string; path?: string[]; extensions?: Record<string, any> }[] };
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
    return { status: res.status, headers: res.headers, body: await res.json() };
  };
}

export type Gql = ReturnType<typeof graphqlClient>;

/** The catalog code of the first error. */
export function codeOf(response: GraphqlResponse): string | undefined {
  return response.body.errors?.[0]?.extensions?.code;
}
