import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { getOperationAST, GraphQLError, type DocumentNode, type ExecutionArgs } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import type { YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import { WebSocket, WebSocketServer } from 'ws';
import { AppError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { fieldError } from '../schema/errors.ts';
import type { GraphqlGate } from './gate.ts';
import { documentRefusal } from './document-limits.ts';
import { limits } from '../schema/cost.ts';
import { subscribeOperation, type SubscriptionHooks } from './subscribe.ts';
import type { GraphQLContext } from '../schema/builder.ts';
import { operationOf, type OperationReporter } from './operation-report.ts';

// graphql-ws (the graphql-transport-ws protocol) on the GraphQL path of every HTTP server the app listens on.
// Browsers cannot send headers on a WebSocket, so the key travels in the connection_init payload:
// connectionParams { authorization: 'Bearer svc_...' } (an Authorization header on the upgrade request is
// accepted too); an optional 'fieldline-version' parameter selects the API version.
// Limits (docs/graphql-limits.md):
// - A message larger than BODY_LIMIT_BYTES closes the socket (1009, by ws) before it is parsed.
// - A socket that has not sent connection_init within CONNECTION_INIT_TIMEOUT_MS is closed (4408, by graphql-ws).
// - connection_init is admitted like an HTTP request: it takes limits.requestPoints from the points bucket of the
//   key, or of the source IP without a valid key; an exhausted bucket closes with 4429 `rate_limit.exceeded`.
// - A refused key closes with 4000 + the HTTP status of the error (4401, 4403, 4400), the dotted code as reason.
// - A key holds at most limits.maxSocketsPerKey open sockets (4429 `websocket.too_many_connections` beyond) and
//   limits.maxSubscriptionsPerKey active subscriptions (the subscribe is refused with
//   `websocket.too_many_subscriptions`), counted in this process.
// - Every operation is admitted again like an HTTP request (key re-checked so revocation applies to open sockets)
//   and passes the same cost limits and charges as over HTTP (limits.ts: through yoga's plugins for queries and
//   mutations, through subscribeOperation for subscriptions); a refusal is a GraphQL error with extensions.code, the
//   socket stays open.

type ConnectionParams = {
  authorization?: unknown;
  Authorization?: unknown;
  'fieldline-version'?: unknown;
};

type SocketExtra = {
  socket: WebSocket;
  request: http.IncomingMessage;
  /** The key the connection was admitted with, and its account. */
  keyId?: string;
  accountId?: string;
  /** The connection's id in the log (connect, operations and close lines). */
  connectionId?: string;
  openedAt?: number;
  /** Ids of the socket's active subscriptions. */
  subscriptions?: Set<string>;
};

const CLOSE_WAIT_MS = 1000;
export const CONNECTION_INIT_TIMEOUT_MS = 3000;

function textParam(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function startWebSocketServer(options: {
  yoga: YogaServerInstance<any, any>;
  gate: GraphqlGate;
  errorsUrl: string;
  logger: Logger;
  path: string;
  maxMessageBytes: number;
  reportOperation: OperationReporter;
  /** How subscription operations are admitted and their errors masked (src/graphql/transport/subscribe.ts). */
  subscriptions: SubscriptionHooks;
}) {
  const { yoga, gate, errorsUrl, logger, path, reportOperation } = options;
  const wss = new WebSocketServer({ noServer: true, maxPayload: options.maxMessageBytes });
  const socketsOfKey = new Map<string, number>();
  const subscriptionsOfKey = new Map<string, number>();
  const adjust = (counts: Map<string, number>, key: string, by: number) => {
    const next = (counts.get(key) ?? 0) + by;
    if (next > 0) counts.set(key, next);
    else counts.delete(key);
  };

  const credentials = (params: ConnectionParams | undefined, request: http.IncomingMessage) => ({
    authorization: textParam(params?.authorization) ?? textParam(params?.Authorization) ?? request.headers.authorization,
    version: textParam(params?.['fieldline-version']) ?? textParam(request.headers['fieldline-version']),
    ip: request.socket.remoteAddress ?? 'unknown',
  });

  const refuseConnection = (socket: WebSocket, code: number, reason: string): false => {
    socket.close(code, reason);
    return false;
  };

  const server = useServer<ConnectionParams, SocketExtra>(
    {
      connectionInitWaitTimeout: CONNECTION_INIT_TIMEOUT_MS,
      async onConnect(ctx) {
        const { authorization, version, ip } = credentials(ctx.connectionParams, ctx.extra.request);
        const { socket } = ctx.extra;
        try {
          const identity = await gate.identify({ authorization, ip });
          if (identity.rateError) return refuseConnection(socket, 4429, identity.rateError.code);
          const { principal } = gate.contextOf(identity, version, newId());
          if ((socketsOfKey.get(principal.key.id) ?? 0) >= limits.maxSocketsPerKey) {
            return refuseConnection(socket, 4429, 'websocket.too_many_connections');
          }
          adjust(socketsOfKey, principal.key.id, 1);
          ctx.extra.keyId = principal.key.id;
          ctx.extra.accountId = principal.accountId;
          ctx.extra.connectionId = newId();
          ctx.extra.openedAt = Date.now();
          logger.info({ connection_id: ctx.extra.connectionId, key_id: principal.key.id, account_id: principal.accountId }, 'websocket connected');
          return true;
        } catch (error) {
          const refusal = error instanceof AppError ? error : new AppError('internal.error');
          if (!(error instanceof AppError)) logger.error({ err_name: (error as Error)?.name }, 'GraphQL WebSocket authentication failed');
          return refuseConnection(socket, 4000 + refusal.status, refusal.code);
        }
      },
      onClose(ctx, code, reason) {
        const { keyId, subscriptions } = ctx.extra;
        if (!keyId) return;
        logger.info(
          {
            connection_id: ctx.extra.connectionId,
            key_id: keyId,
            account_id: ctx.extra.accountId,
            close_code: code,
            close_reason: reason ? String(reason).slice(0, 123) : undefined,
            ms: Date.now() - (ctx.extra.openedAt ?? Date.now()),
          },
          'websocket closed',
        );
        adjust(socketsOfKey, keyId, -1);
        if (subscriptions?.size) adjust(subscriptionsOfKey, keyId, -subscriptions.size);
        subscriptions?.clear();
      },
      onComplete(ctx, id) {
        const { keyId, subscriptions } = ctx.extra;
        if (keyId && subscriptions?.delete(id)) adjust(subscriptionsOfKey, keyId, -1);
      },
      async onSubscribe(ctx, id, payload) {
        const requestId = newId();
        const { authorization, version, ip } = credentials(ctx.connectionParams, ctx.extra.request);
        const outcome = await gate.admit({ authorization, version, requestId, ip });
        if ('error' in outcome) return [fieldError(null, outcome.error, errorsUrl, requestId)];
        const tooBig = documentRefusal(payload.query);
        if (tooBig) return [fieldError(null, tooBig, errorsUrl, requestId)];
        const enveloped = yoga.getEnveloped({ fieldline: outcome.context, params: payload, req: ctx.extra.request, socket: ctx.extra.socket });
        let document: DocumentNode;
        try {
          document = enveloped.parse(payload.query);
        } catch (error) {
          return [error instanceof GraphQLError ? error : new GraphQLError('The document could not be parsed.')];
        }
        const errors = enveloped.validate(enveloped.schema, document);
        if (errors.length > 0) return errors;
        const subscription = getOperationAST(document, payload.operationName)?.operation === 'subscription';
        if (subscription) {
          const keyId = outcome.context.principal.key.id;
          if ((subscriptionsOfKey.get(keyId) ?? 0) >= limits.maxSubscriptionsPerKey) {
            const refusal = new AppError('websocket.too_many_subscriptions', `A key may hold at most ${limits.maxSubscriptionsPerKey} active subscriptions.`);
            return [fieldError(null, refusal, errorsUrl, requestId)];
          }
          (ctx.extra.subscriptions ??= new Set()).add(id);
          adjust(subscriptionsOfKey, keyId, 1);
        }
        const args: ExecutionArgs = {
          schema: enveloped.schema,
          document,
          operationName: payload.operationName,
          variableValues: payload.variables,
          // A query or mutation runs through yoga's plugins (limits, tenant, masking) with yoga's context; a
          // subscription is served by subscribeOperation with the admitted context alone, and keeps nothing of
          // yoga's per operation (no plugin of ours builds context).
          ...(subscription ? { contextValue: outcome.context } : { contextValue: await enveloped.contextFactory(), rootValue: { execute: enveloped.execute } }),
        };
        return args;
      },
      onOperation(ctx, _id, _payload, args) {
        const context = args.contextValue as GraphQLContext;
        const operation = { ...operationOf(args.document, args.operationName), cost: context.cost.requested };
        logger.info(
          {
            request_id: context.requestId,
            connection_id: ctx.extra.connectionId,
            key_id: ctx.extra.keyId,
            account_id: ctx.extra.accountId,
            operation_name: operation.name ?? undefined,
            operation_type: operation.type ?? undefined,
            cost: operation.cost ?? undefined,
          },
          'websocket operation',
        );
        reportOperation(operation);
      },
      execute: (args) => (args.rootValue as { execute: (a: ExecutionArgs) => unknown }).execute(args) as never,
      subscribe: (args) => subscribeOperation(args, options.subscriptions),
    },
    wss,
  );

  let closing: Promise<number> | null = null;
  const attached = new Map<http.Server, (request: http.IncomingMessage, socket: Duplex, head: Buffer) => void>();

  return {
    attach(httpServer: http.Server) {
      if (attached.has(httpServer)) return;
      const onUpgrade = (request: http.IncomingMessage, socket: Duplex, head: Buffer) => {
        const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
        if (pathname === path || pathname === `${path}/`) {
          wss.handleUpgrade(request, socket, head, (ws) => {
            // A socket's 'error' is a client's protocol error (a message over maxPayload, a bad frame): ws closes
            // the socket itself (1009, 1002 ...). It is logged here, once and without a stack, instead of by
            // graphql-ws's console.error.
            const emit = ws.emit.bind(ws);
            ws.emit = ((event: string | symbol, ...args: unknown[]) => {
              if (event !== 'error') return emit(event, ...args);
              logger.info({ err_code: (args[0] as { code?: string } | undefined)?.code }, 'GraphQL WebSocket closed on a protocol error');
              return true;
            }) as typeof ws.emit;
            wss.emit('connection', ws, request);
          });
        } else if (httpServer.listenerCount('upgrade') === 1) {
          socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        }
      };
      httpServer.on('upgrade', onUpgrade);
      attached.set(httpServer, onUpgrade);
    },

    /** Sockets open in this process (admitted or still to send connection_init) and the subscriptions they hold. */
    stats(): { sockets: number; subscriptions: number } {
      let subscriptions = 0;
      for (const count of subscriptionsOfKey.values()) subscriptions += count;
      return { sockets: wss.clients.size, subscriptions };
    },

    /**
     * Closes every open socket (1001, waiting briefly for the close handshake) and stops accepting new ones; resolves
     * with the number of sockets it closed.
     */
    close(): Promise<number> {
      closing ??= shutDown();
      return closing;
    },
  };

  async function shutDown(): Promise<number> {
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
    return open.length;
  }
}
