import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect } from 'vitest';
import type { TestApp } from '../helpers/app.ts';

// The SDK's own client over Streamable HTTP against the real app: what an agent runtime does.

export type CallResult = Awaited<ReturnType<Client['callTool']>> & { structuredContent?: Record<string, unknown> };

/** A connected (initialized) MCP client sending this key; the caller closes it. */
export async function mcpClient(t: TestApp, token: string | null, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'fieldline-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
    requestInit: { headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...headers } },
  });
  await client.connect(transport);
  return client;
}

/** Calls a tool and insists that it succeeded; answers its structured content. */
export async function callOk(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const result = (await client.callTool({ name, arguments: args })) as CallResult;
  expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
  return result.structuredContent as Record<string, any>;
}

/** Calls a tool and insists that it was refused; answers the problem its text carries (a line, then the JSON). */
export async function callError(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const result = (await client.callTool({ name, arguments: args })) as CallResult;
  expect(result.isError, `${name} should fail: ${JSON.stringify(result.content)}`).toBe(true);
  expect(result.structuredContent, 'an error carries no structured content (the output schema describes results)').toBeUndefined();
  const text = (result.content as { text: string }[])[0].text;
  const newline = text.indexOf('\n');
  const problem = (JSON.parse(text.slice(newline + 1)) as { error: Record<string, any> }).error;
  // The first line says the same code, for a reader of the text.
  expect(text.slice(0, newline)).toContain(problem.code);
  return problem;
}

/** The text of an MCP resource (every resource of the server is text). */
export async function readText(client: Client, uri: string): Promise<string> {
  const [content] = (await client.readResource({ uri })).contents;
  if (!('text' in content)) throw new Error(`${uri} is not text`);
  return content.text;
}
