import type { IncomingMessage } from 'node:http';
import type { Express, Request, Response } from 'express';
import type { Logger } from 'pino';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  CallToolRequestSchema,
  ErrorCode as RpcCode,
  InitializeRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  PingRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Domain } from '../domain.ts';
import { admittedContext, identifyCaller, rateHeaders, type Identity } from '../http/admission.ts';
import { declaresBody, readBodyText } from '../http/body-reader.ts';
import { parseJsonRequest } from '../http/json-depth.ts';
import { asAppError, sendProblem } from '../http/problem.ts';
import { bodyReadRefusal, mediaTypeRefusal } from '../http/request-body.ts';
import { grants } from '../kernel/scopes.ts';
import { AppError } from '../kernel/errors.ts';
import type { Bucket } from '../kernel/rate-limit.ts';
import { CURRENT_VERSION, VERSION_HEADER } from '../kernel/versioning.ts';
import { mcpDocuments } from './guides.ts';
import { toolError } from './tool-errors.ts';
import { buildTools, type McpTool } from './tools.ts';

// POST /mcp: the Model Context Protocol's Streamable HTTP transport (the official SDK), stateless. Each request
// gets its own SDK server and transport, answers with JSON (no SSE stream, no session id) and keeps nothing after
// it, so any process behind a load balancer answers any request (docs/decisions.md, MCP). GET (a stream for
// server-initiated messages) and DELETE (ending a session) have nothing to serve without sessions: 405, as the
// transport's specification says for a server that offers neither.
//
// Admission is REST's (src/http/admission.ts): the bearer key, its rate bucket, the Fieldline-Version header, the
// account and user checks. A request takes from the bucket of the REST request its tool call stands for (read for
// list_* and get_*, write for the writes, webhook_ingest for the webhook endpoints' tools); a request without a tool
// call (initialize, tools/list, resources/read) takes one read. A failed authentication is HTTP 401 (an MCP client
// asks for credentials on it); a spent bucket is, on a tool call, a tool error with rate_limit.exceeded (and the
// RateLimit headers and Retry-After on the HTTP answer), else HTTP 429.

export const MCP_PATH = '/mcp';

export interface McpConfig {
  BODY_LIMIT_BYTES: number;
  ERRORS_URL: string;
}

export interface McpDocuments {
  openapi: () => object;
}

type JsonRpcMessage = { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: { name?: unknown; arguments?: unknown } };

/** The tool calls of a request's messages (one message, or a batch). */
function toolCalls(body: unknown): JsonRpcMessage[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.filter((message): message is JsonRpcMessage => typeof message === 'object' && message !== null && (message as JsonRpcMessage).method === 'tools/call');
}

/** The SDK's schema of each request this server answers, by method. */
const requestSchemas: Record<string, { safeParse(value: unknown): { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } } }> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
  'resources/list': ListResourcesRequestSchema,
  'resources/read': ReadResourceRequestSchema,
};

/**
 * The JSON-RPC answer to a request whose params do not fit the method (-32602 Invalid params, naming what is
 * wrong), or undefined. The SDK parses params with the same schemas, but answers a misfit as -32603 Internal error;
 * an agent should learn that its call was wrong, not that the server failed. One message only: batches are not in
 * the current protocol, and the SDK answers them itself.
 */
function invalidParams(body: unknown): object | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const message = body as JsonRpcMessage;
  const schema = typeof message.method === 'string' && Object.hasOwn(requestSchemas, message.method) ? requestSchemas[message.method] : undefined;
  if (!schema || (typeof message.id !== 'string' && typeof message.id !== 'number')) return undefined;
  const parsed = schema.safeParse(message);
  if (parsed.success) return undefined;
  const issues = (parsed.error?.issues ?? []).map((issue) => `${issue.path.map(String).join('.') || 'message'}: ${issue.message}`);
  return { jsonrpc: '2.0', id: message.id, error: { code: RpcCode.InvalidParams, message: `Invalid params for ${message.method}: ${issues.join('; ')}` } };
}

/** An HTTP-level refusal as REST's problem+json; a 401 asks for the bearer key, as MCP clients expect. */
function refuse(req: Request, res: Response, error: unknown, errorsUrl: string, logger: Logger): void {
  if (error instanceof AppError && error.status === 401) res.setHeader('WWW-Authenticate', 'Bearer');
  sendProblem(req, res, error, errorsUrl, logger);
}

export function mountMcp(app: Express, domain: Domain, config: McpConfig, logger: Logger, documents: McpDocuments): void {
  let tools: Map<string, McpTool> | undefined;
  // Built with the first request: the tools' schemas are read from the OpenAPI document, itself built on demand.
  const toolsOf = () => (tools ??= buildTools(domain, documents.openapi()));
  const served = mcpDocuments(documents.openapi, config.ERRORS_URL);

  // One JSON Schema validator for every request's SDK server: without it each server builds its own Ajv instance
  // (with its formats), about 200 µs of CPU per request that nothing here uses (the SDK's server validates only
  // elicitation answers, which this server never asks for).
  const jsonSchemaValidator = new AjvJsonSchemaValidator();

  /** An SDK server for one request, answering for the identified caller. */
  function serverFor(req: Request, identity: Identity): Server {
    const server = new Server(
      { name: 'fieldline', title: 'Fieldline', version: CURRENT_VERSION },
      {
        capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
        jsonSchemaValidator,
        instructions:
          'Fieldline field-service records (customers, jobs, invoices ...). Read before you write: update_* and delete_* take the etag get_* answered; financial creates take an idempotency_key; list_* page with next_cursor. Errors carry the catalog code (resource fieldline://errors). Guides: fieldline://docs/paging, fieldline://docs/etags, fieldline://docs/idempotency.',
      },
    );
    const context = (scopes: McpTool['scopes'] = []) => admittedContext(identity, { version: req.get(VERSION_HEADER), requestId: req.requestId, versions: domain.versions, scopes });

    server.setRequestHandler(ListToolsRequestSchema, async () => {
      const granted = context().principal.key.scopes;
      // Only what the key may call; a call without the scope still answers the scope error (the key may change).
      const visible = [...toolsOf().values()].filter((tool) => tool.scopes.every((scope) => grants(granted, scope)));
      return {
        tools: visible.map(({ name, description, inputSchema, outputSchema, annotations }) => ({
          name,
          title: annotations.title,
          description,
          inputSchema: inputSchema as { type: 'object' },
          ...(outputSchema ? { outputSchema: outputSchema as { type: 'object' } } : {}),
          annotations,
        })),
      };
    });

    server.setRequestHandler(CallToolRequestSchema, async (request) => {
      const tool = toolsOf().get(request.params.name);
      try {
        if (identity.rateError) throw identity.rateError;
        if (!tool) throw new AppError('route.not_found', `No tool ${request.params.name}; tools/list names the tools this key may call.`);
        const ctx = context(tool.scopes);
        const args = (request.params.arguments ?? {}) as Record<string, unknown>;
        const outcome = await tool.run({ domain, ctx, args });
        return { content: [{ type: 'text' as const, text: outcome.text }], structuredContent: outcome.structured };
      } catch (error) {
        return toolError(asAppError(error, req.requestId, logger), req.requestId, config.ERRORS_URL);
      }
    });

    server.setRequestHandler(ListResourcesRequestSchema, async () => {
      context();
      return { resources: served.map(({ uri, name, title, description, mimeType }) => ({ uri, name, title, description, mimeType })) };
    });

    server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
      context();
      const document = served.find((entry) => entry.uri === request.params.uri);
      if (!document) throw new McpError(RpcCode.InvalidParams, `No resource ${request.params.uri}; resources/list names them.`);
      return { contents: [{ uri: document.uri, mimeType: document.mimeType, text: document.text() }] };
    });
    return server;
  }

  app.post(MCP_PATH, async (req, res) => {
    try {
      if (!declaresBody(req)) throw new AppError('validation.failed', 'A JSON-RPC message is required.', { errors: { body: ['is missing'] } });
      const unsupported = mediaTypeRefusal(req.get('content-type'));
      if (unsupported) throw unsupported;
      let text: string;
      try {
        text = await readBodyText(req, config.BODY_LIMIT_BYTES);
      } catch (error) {
        throw bodyReadRefusal(error, config.BODY_LIMIT_BYTES) ?? error;
      }
      const body = parseJsonRequest(text);
      const calls = toolCalls(body);
      // A call of an unknown tool, or a batch, is charged to the first call's bucket (batches are not in the current protocol).
      const named = calls[0]?.params?.name;
      const bucket: Bucket = (typeof named === 'string' ? toolsOf().get(named)?.bucket : undefined) ?? 'read';
      const identity = await identifyCaller(domain, { authorization: req.get('authorization'), ip: req.ip ?? 'unknown', bucket, points: Math.max(1, calls.length) });
      if (identity.decision) res.set(rateHeaders(identity.decision));
      // Authentication and the API version are checked before any message is read: an MCP client asks for a key on 401.
      admittedContext(identity, { version: req.get(VERSION_HEADER), requestId: req.requestId, versions: domain.versions });
      if (identity.rateError) {
        for (const [name, value] of Object.entries(identity.rateError.headers)) res.setHeader(name, value);
        if (calls.length === 0) throw identity.rateError;
      }
      const malformed = invalidParams(body);
      if (malformed) {
        res.status(200).json(malformed);
        return;
      }
      const server = serverFor(req, identity);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req as IncomingMessage, res, body);
    } catch (error) {
      if (res.headersSent) return;
      refuse(req, res, error, config.ERRORS_URL, logger);
    }
  });

  const notServed = (req: Request, res: Response) => {
    res.setHeader('Allow', 'POST');
    refuse(req, res, new AppError('method.not_allowed', `${req.method} is not served on ${MCP_PATH}: the server is stateless (no sessions, no server-initiated stream); POST each message.`), config.ERRORS_URL, logger);
  };
  app.get(MCP_PATH, notServed);
  app.delete(MCP_PATH, notServed);
}
