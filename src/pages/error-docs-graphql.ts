import type { ErrorCode } from '../kernel/errors.ts';
import { graphql, type ErrorDoc } from './error-docs-common.ts';

// The error pages' texts of the GraphQL and WebSocket codes (src/pages/error-docs.ts).

export const graphqlErrorDocs = {
  'graphql.cost_exceeded': {
    when: 'GraphQL only. The operation\'s computed cost is over 50,000 points. A field returning an object costs 1 plus its selection; a connection costs 1 plus `first` (default 25 for lists, 10 for collections below a record) times one item\'s selection; a mutation field 10 more. Nothing runs.',
    fix: 'Ask for smaller pages (`first`), fewer nested connections or fewer fields, or split the operation into several. Every answer reports the cost in `extensions.cost`.',
    apis: graphql,
    example: { detail: 'The operation costs 62601 points; at most 50000. Ask for smaller pages (limit) or fewer relations.' },
  },
  'graphql.depth_exceeded': {
    when: 'GraphQL only. The selection is more than 15 levels deep (fragments expanded), or the document nests brackets (`{`, `[`, `(`) more than 64 levels. Nothing runs.',
    fix: 'Select less deeply: read nested records in a second operation, by id (`node`, `nodes`), instead of following relations back and forth.',
    apis: graphql,
    example: { detail: 'The selection is 17 levels deep; at most 15.' },
  },
  'graphql.too_many_aliases': {
    when: 'GraphQL only. The operation has more than 100 aliased fields, fragments counted in full. Nothing runs.',
    fix: 'Use fewer aliases: read many records with one list field or `nodes(ids:)` instead of one alias per record, or split the operation.',
    apis: graphql,
    example: { detail: 'The operation has more than 100 aliased fields (fragments counted in full).' },
  },
  'graphql.too_many_tokens': {
    when: 'GraphQL only. The document has more than 5,000 tokens (names, punctuation, values). Nothing runs.',
    fix: 'Shorten the document: pass values as variables, drop unused fragments and fields, or split it into several operations.',
    apis: graphql,
    example: { detail: 'The document has more than 5000 tokens.' },
  },
  'graphql.variable_undeclared': {
    when: 'GraphQL only. The request\'s `variables` give a variable that no operation of the document declares (`query ($id: ID!)` declares `id`). Nothing runs.',
    fix: 'Send only the variables the document declares; drop the others, or declare them in the operation that uses them.',
    apis: graphql,
    example: { detail: 'The variables give $limit, which no operation of the document declares.' },
  },
  'graphql.result_too_large': {
    when: 'GraphQL only. Before it runs, the largest answer the operation could have (each field at its longest value, times the pages it asks for) is over 64 Mi characters: nothing runs. Or, while it ran, the result grew past 50,000 objects or 16 MiB of values; execution stops and no data is returned, and mutation fields that already ran stand.',
    fix: 'Select fewer fields (long texts count at their declared maximum) or smaller pages, and page through large collections with `first` and `after`.',
    apis: graphql,
    example: { detail: 'The result grew past 50000 objects or 16777216 characters; select fewer fields or smaller pages.' },
  },
  'graphql.operation_not_allowed': {
    when: 'GraphQL only. The server runs only its persisted operations (an allowlist), and the request sent a document, or an id, that is not one of them. Over HTTP and over WebSocket.',
    fix: 'Send the id of a persisted operation (`extensions.persistedQuery.sha256Hash` or `documentId`). To run a new operation, ask the server\'s operator to add it to the allowlist.',
    apis: graphql,
    example: { detail: 'This server runs only its persisted operations: send the id of one (extensions.persistedQuery.sha256Hash or documentId).' },
  },
  'graphql.websocket_required': {
    when: 'GraphQL only, over HTTP. The operation is a subscription: subscriptions are served over WebSocket, where each is admitted, counted against the key\'s cap and ended when the key is revoked.',
    fix: 'Open a WebSocket on the same path with the graphql-transport-ws protocol (the graphql-ws client) and send the key in connection_init: {"authorization": "Bearer svc_..."}.',
    apis: graphql,
    example: { detail: 'Subscriptions are served over WebSocket (graphql-transport-ws) on this path, not over HTTP.' },
  },
  'graphql.parse_failed': {
    when: 'GraphQL only. The document is not GraphQL: a brace or parenthesis left open, a stray character, a string not closed. The message says what the parser expected and `locations` where. Nothing runs.',
    fix: 'Correct the document at the line and column given. Editors with the schema (GraphiQL at `/graphql`) show syntax errors as you type.',
    apis: graphql,
    example: { detail: 'Syntax Error: Expected Name, found <EOF>.' },
  },
  'graphql.validation_failed': {
    when: 'GraphQL only. The document is GraphQL but does not fit the schema: a field or argument that does not exist, an argument of the wrong type written in the document, a required argument left out, a variable declared and never used, a fragment on the wrong type. Each problem is one error, with `locations`; the message names the field, argument or type, and often suggests the name you meant. Nothing runs.',
    fix: 'Correct the document against the schema (`schema.graphql`, or introspection); the message says what to change. A value that comes from your program belongs in a variable, where a wrong one is `graphql.variables_invalid`.',
    apis: graphql,
    example: { detail: 'Cannot query field "organisation" on type "Customer". Did you mean "organization"?' },
  },
  'graphql.variables_invalid': {
    when: 'GraphQL only. A variable\'s value does not fit its declared type: a string for an `Int`, a value that is not one of an enum\'s values, a required variable missing or null, an input object with an unknown field. The message names the variable and what was wrong. Nothing runs.',
    fix: 'Send variables of the declared types; the message names the variable and the value it refused.',
    apis: graphql,
    example: { detail: 'Variable "$first" got invalid value "ten"; Int cannot represent non-integer value: "ten"' },
  },
  'websocket.too_many_connections': {
    when: 'GraphQL WebSocket only. Opening a socket when the key already holds 20 open sockets on the server. The socket is closed with code 4429 and this code as the close reason.',
    fix: 'Run all your subscriptions over one socket per process, and close sockets you no longer use.',
    apis: graphql,
    websocket: { close: 4429 },
    example: { detail: null },
  },
  'websocket.too_many_subscriptions': {
    when: 'GraphQL WebSocket only. A `subscribe` when the key already holds 100 active subscriptions on the server. The subscribe is answered with an `error` message carrying this code; the socket stays open.',
    fix: 'Complete subscriptions you no longer need, or subscribe to broader events and filter on your side.',
    apis: graphql,
    websocket: 'error',
    example: { detail: 'A key may hold at most 100 active subscriptions.' },
  },
  'subscription.resync_required': {
    when: 'GraphQL WebSocket only (subscriptions). The stream cannot go on without a gap: `afterSeq` is more than 1,000 events behind, or the client read so slowly that more than 1,000 events waited for it. The last result of the subscription carries this error, then the subscription completes.',
    fix: 'Read the current state (for a board, `dispatchBoard`), then subscribe again without `afterSeq`, or with the seq of an event you have. `GET /events` pages through any length of history by seq.',
    apis: graphql,
    example: { detail: 'More than 1000 events followed afterSeq 41; read the current state, then subscribe again without afterSeq.' },
  },
} satisfies Partial<Record<ErrorCode, ErrorDoc>>;
