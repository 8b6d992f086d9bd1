import type { Request, Response } from 'express';
import { getOperationAST, type DocumentNode, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { noteErrorCode, noteOperation, type OperationNote } from '../../http/request-log.ts';
import type { GraphQLContext } from '../schema/builder.ts';

// What each GraphQL operation was, for the request log and the metrics: its name, its type and its requested
// cost. Over HTTP the plugin below notes it on the response (the app's request log writes it with the request's
// line, with the code of the first error); WebSocket operations are reported by websocket.ts.

export type OperationReporter = (operation: OperationNote) => void;

/** The name and type of the operation a document and operation name select (both null when none is selected). */
export function operationOf(document: DocumentNode, operationName: string | null | undefined): Pick<OperationNote, 'name' | 'type'> {
  const operation = getOperationAST(document, operationName ?? undefined);
  return { name: operation?.name?.value ?? null, type: operation?.operation ?? null };
}

/** The catalog code of a result's first error, when it has one. */
function firstErrorCode(result: ExecutionResult): string | undefined {
  const code = result.errors?.[0]?.extensions?.code;
  return typeof code === 'string' ? code : undefined;
}

export function operationReport(
  admitted: WeakMap<Request, GraphQLContext>,
  report: OperationReporter,
): Plugin<{ req?: Request }, { req: Request; res: Response }, GraphQLContext> {
  // Keyed by the HTTP request: yoga's execution context carries the server context's req.
  const selected = new WeakMap<Request, Pick<OperationNote, 'name' | 'type'>>();
  return {
    onExecute({ args }) {
      const req = (args.contextValue as { req?: Request }).req;
      if (req) selected.set(req, operationOf(args.document, args.operationName));
    },
    onResultProcess({ result, serverContext }) {
      const req = serverContext?.req;
      const ctx = req ? admitted.get(req) : undefined;
      if (!ctx || Array.isArray(result) || Symbol.asyncIterator in (result as object)) return;
      const operation = { name: null, type: null, ...selected.get(req), cost: ctx.cost.requested };
      noteOperation(serverContext.res, operation);
      const code = firstErrorCode(result as ExecutionResult);
      if (code) noteErrorCode(serverContext.res, code);
      report(operation);
    },
  };
}
