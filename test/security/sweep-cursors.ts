import type { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallResult } from '../mcp/helpers.ts';
import type { Catalog } from './sweep-kit.ts';
import { toolOperation, type ListedTool } from './sweep-mcp.ts';
import { collectionKind, nextCursor, type Model } from './sweep-openapi.ts';
import type { Side } from './sweep-rest.ts';
import type { Seeded } from './sweep-seed.ts';

// The next-page cursors a tenant is issued, which the sweep sends as the other tenant's: REST's (Link, limit=1)
// and the MCP list tools' (next_cursor, limit 1). GraphQL's are read by graphqlCursors (sweep-graphql.ts).

/**
 * A next-page cursor of every paginated list, by its documented path: a list under a record (a customer's notes)
 * under the first of the side's records of that kind that has a second page.
 */
export async function restCursors(model: Model, side: Seeded, catalog: Catalog): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const list of model.lists.filter((l) => l.paginated)) {
    const params = list.path.match(/\{[a-z_]+\}/g) ?? [];
    const paths = params.length === 0 ? [list.path] : params.length === 1 && list.parentKind ? (catalog.refs.get(list.parentKind) ?? []).map((r) => list.path.replace(params[0], String(r.id))) : [];
    for (const path of paths) {
      const cursor = nextCursor((await side.api.get(`${path}?limit=1`)).headers);
      if (cursor) {
        out.set(list.path, cursor);
        break;
      }
    }
  }
  return out;
}

/** The side's next_cursor of every list tool (limit 1; a list under a record: under the first of its records that has one). */
export async function mcpCursors(model: Model, client: McpClient, side: Side): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const tools = (await client.listTools()).tools as ListedTool[];
  for (const tool of tools.filter((x) => x.inputSchema.properties?.cursor)) {
    const op = toolOperation(model, tool.name);
    const kind = op && tool.inputSchema.properties?.id ? collectionKind(model, op.path, 'id') : undefined;
    const parents = kind ? (side.catalog.refs.get(kind) ?? []).slice(0, 5).map((r) => ({ id: r.id })) : [{}];
    for (const parent of parents) {
      const result = (await client.callTool({ name: tool.name, arguments: { ...parent, limit: 1 } })) as CallResult;
      const cursor = (result.structuredContent as { next_cursor?: string } | undefined)?.next_cursor;
      if (!result.isError && cursor) {
        out.set(tool.name, cursor);
        break;
      }
    }
  }
  return out;
}
