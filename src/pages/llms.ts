import { CURRENT_VERSION, VERSION_HEADER } from '../kernel/versioning.ts';
import type { PagesConfig } from './layout.ts';

// GET /llms.txt: a short index of the API for language-model tools (the llms.txt convention: a markdown title, a
// one-paragraph summary, then sections of links), pointing at the machine-readable documents and the MCP endpoint.
// Public, like the pages; links are absolute on PUBLIC_URL when it is set, else paths on this server.

export function llmsText(config: PagesConfig): string {
  const base = config.PUBLIC_URL ?? '';
  return `# Fieldline

> Multi-tenant field-service management API (customers, sites, contacts, jobs, estimates, invoices, payments,
> purchase orders ...). REST under /api/v2, GraphQL at /graphql, and a Model Context Protocol endpoint for agents at
> /mcp. Every call needs \`Authorization: Bearer svc_...\` (an API key of the account); the key's scopes decide what
> it may read and write. API version ${CURRENT_VERSION} (header ${VERSION_HEADER}).

## Agents (MCP)

- [MCP endpoint](${base}/mcp): Streamable HTTP, stateless (POST each JSON-RPC message; no sessions). Tools are
  generated from the resource declarations (list_<plural>, get_<name>, create_<name>, update_<name>,
  delete_<name>, the actions such as convert_estimate); tools/list shows only what the key may call. Read before
  you write: update and delete take the etag, financial creates an idempotency_key, lists page with next_cursor.
  Resources: fieldline://openapi.json, fieldline://errors, fieldline://docs/paging, fieldline://docs/etags,
  fieldline://docs/idempotency.

## Documents

- [OpenAPI document](${base}/api/v2/openapi.json): the REST API as OpenAPI 3.1 (JSON), every operation, body and error code.
- [AsyncAPI document](${base}/api/v2/asyncapi.json): the events (webhook topics and GraphQL subscriptions) as AsyncAPI 3.0.
- [GraphQL](${base}/graphql): the schema by introspection (POST), GraphiQL in a browser.
- [Error catalog](${base}/errors): every error code with its status, cause and fix.
- [API reference](${base}/docs): the OpenAPI document rendered for people.
`;
}
