import { errorCatalog, docSlug, type ErrorCode } from '../kernel/errors.ts';

// The MCP resources: what an agent reads before it calls tools. The OpenAPI document (the same one REST serves:
// every tool's input is an operation's), the error catalog, and three short guides to the rules the tools share,
// in the tools' own terms (arguments, not headers). Readable by any valid key.

export interface McpDocument {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
  text: () => string;
}

const paging = `# Paging (list_* tools)

A list tool answers one page: \`{data, has_more, next_cursor}\`. While has_more is true, call the same tool again
with \`cursor\` set to next_cursor (keep the filters; the order is the cursor's, so \`sort\` is ignored on
continuation pages). On the last page next_cursor is null. \`limit\` is the page size (default 25, at most 100).
\`sort\` takes one field, \`-\` first for descending (an unknown one: sort.invalid); \`q\` narrows by text; a filter
is \`<field>\` or \`<field>[<operator>]\` (\`status[in]\` takes comma-separated values). An unknown argument, field or
operator, or a value that does not parse, is filter.invalid. A cursor is signed and bound to its list and filters:
another list's, an altered or an expired one is cursor.invalid. Lists never count: there is no total.
`;

const etags = `# ETags (update_* and delete_* tools)

Every record comes with its \`etag\` (get_*, list items have theirs from get_*, create_* and update_* answer it).
update_* and delete_* take it: the write happens only if the record is still at that version, checked and written
in one statement. Without it: precondition.required; stale (someone changed the record since you read it):
precondition.failed. Then read the record again (get_*), decide again, and retry with the new etag. Never reuse an
etag after a write: the write's answer carries the new one.
`;

const idempotency = `# Idempotency (financial creates)

Financial creates (create_invoice, create_payment, create_sales_order, create_inventory_transfer, and the actions
that invoice an estimate, a job or a sales order or receive a purchase order) need \`idempotency_key\`: a key you choose, unique per intended create (a UUID). Without it the call is
refused (idempotency_key.required) and nothing is created. A retry with the same key and the same arguments
answers the first result again (the text says "replayed") instead of creating twice: retry freely after a timeout.
The same key with other arguments is idempotency_key.in_use, as is a key whose first call is still running (retry
after a moment). Keys are kept 24 hours, per API key. They are the store REST's Idempotency-Key header uses, with
the same rules; a key used through MCP is not the same request as one used through REST.
`;

/** The MCP resources of the server, built on each read from what they describe. */
export function mcpDocuments(openapi: () => object, errorsUrl: string): McpDocument[] {
  return [
    {
      uri: 'fieldline://openapi.json',
      name: 'openapi',
      title: 'OpenAPI document',
      description: 'The REST API as OpenAPI 3.1, generated from the same declarations as the tools (each tool takes what its operation takes).',
      mimeType: 'application/json',
      text: () => JSON.stringify(openapi()),
    },
    {
      uri: 'fieldline://errors',
      name: 'errors',
      title: 'Error catalog',
      description: 'Every error code a tool error can carry, with its status, title and the page explaining its cause and fix.',
      mimeType: 'application/json',
      text: () =>
        JSON.stringify(
          (Object.keys(errorCatalog) as ErrorCode[]).map((code) => ({ code, status: errorCatalog[code].status, title: errorCatalog[code].title, doc_url: `${errorsUrl}/${docSlug(code)}` })),
        ),
    },
    { uri: 'fieldline://docs/paging', name: 'paging', title: 'Paging', description: 'How list tools page with signed cursors.', mimeType: 'text/markdown', text: () => paging },
    { uri: 'fieldline://docs/etags', name: 'etags', title: 'ETags', description: 'Why update and delete tools take the etag, and what to do when it is stale.', mimeType: 'text/markdown', text: () => etags },
    { uri: 'fieldline://docs/idempotency', name: 'idempotency', title: 'Idempotency', description: 'The idempotency_key of financial creates.', mimeType: 'text/markdown', text: () => idempotency },
  ];
}
