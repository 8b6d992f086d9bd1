import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { GraphQLError, type DocumentNode, type ExecutionArgs } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import type { YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import { WebSocket, WebSocketServer } from 'ws';
import { AppError } from '../kernel/errors.ts';
import { newId } from '../kernel/ids.ts';
import { fieldError } from './errors.ts';
import type { GraphqlGate } from './gate.ts';

// graphql-ws (the graphql-transport-ws protocol) on the GraphQL path of every HTTP server the app listens on.
// Browsers cannot send headers on a WebSocket, so the key travels in the connection_init payload:
// connectionParams { authorization: 'Bearer svc_...' } (an Authorization header on the upgrade request is
// accepted too); an optional 'fieldline-version' parameter selects the API version.
// - A connection whose key is refused is closed with 4000 + the HTTP status of the error (4401, 4403, 4400)
//   and the dotted error code as the close reason.
// - Every operation is admitted again like an HTTP request (key re-checked so revocation applies to open
//   sockets, one request from the key's read or write bucket); a refusal is a GraphQL error message with
//   extensions.code, the socket stays open.
// There are no subscriptions yet; queries and mutations run over the socket as over HTTP.

type ConnectionParams = {
  authorization?: unknown;
  Authorization?: unknown;
  'fieldline-version'?: unknown;
};

const CLOSE_WAIT_MS = 1000;

function textParam(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function startWebSocketServer(options: {
  yoga: YogaServerInstance<any, any>;
  gate: GraphqlGate;
  errorsUrl: string;
  logger: Logger;
  path: string;
}) {
  const { yoga, gate, errorsUrl, logger, path } = options;
  const wss = new WebSocketServer({ noServer: true });

  const credentials = (params: ConnectionParams | undefined, request: http.IncomingMessage) => ({
    authorization: textParam(params?.authorization) ?? textParam(params?.Authorization) ?? request.headers.authorization,
    version: textParam(params?.['fieldline-version']) ?? textParam(request.headers['fieldline-version']),
    ip: request.socket.remoteAddress ?? 'unknown',
  });

  const server = useServer<ConnectionParams, { socket: WebSocket; request: http.IncomingMessage }>(
    {
      async onConnect(ctx) {
        const { authorization, version } = credentials(ctx.connectionParams, ctx.extra.request);
        let refusal: AppError | null = null;
        try {
          await gate.check(authorization, version);
        } catch (error) {
          refusal = error instanceof AppError ? error : new AppError('internal.error');
          if (!(error instanceof AppError)) logger.error({ err_name: (error as Error)?.name }, 'GraphQL WebSocket authentication failed');
        }
        if (!refusal) return true;
        ctx.extra.socket.close(4000 + refusal.status, refusal.code);
        return false;
      },
      async onSubscribe(ctx, _id, payload) {
        const requestId = newId();
        const { authorization, version, ip } = credentials(ctx.connectionParams, ctx.extra.request);
        const outcome = await gate.admit({ authorization, version, requestId, ip, bucket: gate.bucketOf(payload.query, payload.operationName) });
        if ('error' in outcome) return [fieldError(null, outcome.error, errorsUrl, requestId)];
        const enveloped = yoga.getEnveloped({ fieldline: outcome.context, params: payload, req: ctx.extra.request, socket: ctx.extra.socket });
        let document: DocumentNode;
        try {
          document = enveloped.parse(payload.query);
        } catch (error) {
          return [error instanceof GraphQLError ? error : new GraphQLError('The document could not be parsed.')];
        }
        const errors = enveloped.validate(enveloped.schema, document);
        if (errors.length > 0) return errors;
        const args: ExecutionArgs = {
          schema: enveloped.schema,
          document,
          operationName: payload.operationName,
          variableValues: payload.variables,
          contextValue: await enveloped.contextFactory(),
          rootValue: { execute: enveloped.execute, subscribe: enveloped.subscribe },
        };
        return args;
      },
      execute: (args) => (args.rootValue as { execute: (a: ExecutionArgs) => unknown }).execute(args) as never,
      subscribe: (args) => (args.rootValue as { subscribe: (a: ExecutionArgs) => unknown }).subscribe(args) as never,
    },
    wss,
  );

  let closing: Promise<void> | null = null;
  const attached = new Map<http.Server, (request: http.IncomingMessage, socket: Duplex, head: Buffer) => void>();

  return {
    attach(httpServer: http.Server) {
      if (attached.has(httpServer)) return;
      const onUpgrade = (request: http.IncomingMessage, socket: Duplex, head: Buffer) => {
        const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
        if (pathname === path || pathname === `${path}/`) {
          wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
        } else if (httpServer.listenerCount('upgrade') === 1) {
          socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        }
      };
      httpServer.on('upgrade', onUpgrade);
      attached.set(httpServer, onUpgrade);
    },

    /** Closes every open socket (1001, waiting briefly for the close handshake) and stops accepting new ones. */
    close(): Promise<void> {
      closing ??= shutDown();
      return closing;
    },
  };

  async function shutDown(): Promise<void> {
    for (const [httpServer, onUpgrade] of attached) httpServer.off('upgrade', onUpgrade);
    attached.clear();
    const open = [...wss.clients];
    const closed = Promise.all(
      open.map((socket) => (socket.readyState === WebSocket.CLOSED ? null : new Promise<void>((resolve) => socket.once('close', () => resolve())))),
    );
    for (const socket of open) socket.close(1001, 'Server shutting down');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([closed, new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)))]);
    clearTimeout(timer);
    for (const socket of wss.clients) socket.terminate();
    await server.dispose();
  }
}
