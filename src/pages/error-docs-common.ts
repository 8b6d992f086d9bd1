
// The shapes and shared example values of the error pages' texts (src/pages/error-docs.ts).

/** Which API answers a code: REST as problem+json, GraphQL in extensions.code (or a mutation payload's userErrors). */
export type ErrorApi = 'rest' | 'graphql';

/** An example of the error as the server sends it. */
export interface ErrorExample {
  /** The request path the REST problem names in `instance`. */
  instance?: string;
  /**
   * The problem's `detail` (the GraphQL error's message), as the server writes it: a field named in it is a
   * `{wire_name}` marker, which each API renders in its own names (REST main_phone, GraphQL mainPhone). null: none.
   */
  detail: string | null;
  /** Top-level problem fields the code adds (snake_case; GraphQL carries them in camelCase in extensions). */
  fields?: Record<string, unknown>;
  /** Response headers that belong to the error. */
  headers?: Record<string, string>;
}

export interface ErrorDoc {
  /** When the server answers the code: which requests, which header, field or limit. */
  when: string;
  /** What the client does about it. */
  fix: string;
  /** Which APIs answer it. */
  apis: readonly ErrorApi[];
  /** GraphQL WebSocket codes: the socket is closed with this code as its reason, or a subscribe is answered with an error. */
  websocket?: { close: number } | 'error';
  example: ErrorExample;
}

export const both: readonly ErrorApi[] = ['rest', 'graphql'];
export const rest: readonly ErrorApi[] = ['rest'];
export const graphql: readonly ErrorApi[] = ['graphql'];

export const ID = '0190f7a2-5b1c-7d3e-8f4a-2b6c9d0e1f23';
export const OTHER_ID = '0190f7a2-6c2d-7e4f-9a5b-3c7d0e1f2a34';

export const verification =
  'Registering or re-verifying a webhook endpoint: the server posts a challenge token to the endpoint, which must answer with the token verbatim in its response body. The endpoint stays `unverified`';
