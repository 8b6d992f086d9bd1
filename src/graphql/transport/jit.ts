import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { GraphQLError, Kind, type DocumentNode, type ExecutionArgs, type ExecutionResult, type OperationDefinitionNode, type Source, type SourceLocation } from 'graphql';
import type { Plugin } from 'graphql-yoga';

// Queries and mutations run by graphql-jit: each operation of a document is compiled once into a function that
// walks its selection (the schema's resolvers, meter and scope checks included) without graphql-js's per-field
// interpretation (a resolve info, a path and an argument map per field, per row). On the dispatch board (about
// 45,000 fields per request) that halves the CPU of a request (bench/README.md, "Dispatch board").
//
// The answer is the same: the same resolvers, scalars' serialize, null propagation, error paths and messages.
// Where graphql-jit's answer would differ, graphql-js runs instead:
// - request errors (variables that do not coerce, no operation to run): graphql-js answers them with their
//   HTTP 400, so a compiled operation whose result has no data is run again by graphql-js (nothing was resolved);
// - an operation that cannot be compiled, and subscriptions (this plugin only replaces execute);
// - the first execution of an operation: compiling costs more than running it once (the board's document: about
//   3 ms; 40 aliased job selections: about 60 ms), so an operation is compiled when its parsed document (yoga
//   caches them by source) runs a second time, and only a document of at most MAX_COMPILED_SOURCE characters.
//   The apps send the same documents again and again; a client sending new or huge documents gets graphql-js,
//   so compiling never costs more than a bounded amount per repeated document.
// graphql-jit takes no abort signal: once the result meter (limits.ts) has refused a result, its resolvers stop
// resolving instead.

type Compiled = CompiledQuery<unknown, Record<string, unknown>>;

/** Largest document source compiled (characters); the board's is about 450. */
export const MAX_COMPILED_SOURCE = 4000;

function operationOf(document: DocumentNode, operationName: string | null | undefined): OperationDefinitionNode | undefined {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  return operationName ? operations.find((op) => op.name?.value === operationName) : operations.length === 1 ? operations[0] : undefined;
}

/** The character offset of a line and column (1-based) in a source, as graphql-js counts lines. */
function offsetOf(body: string, { line, column }: SourceLocation): number {
  let offset = 0;
  for (let at = 1; at < line; at++) {
    const lineBreak = /\r\n|[\n\r]/g;
    lineBreak.lastIndex = offset;
    const found = lineBreak.exec(body);
    if (!found) break;
    offset = found.index + found[0].length;
  }
  return offset + column - 1;
}

/**
 * A field error of graphql-jit as graphql-js makes it (locatedError): graphql-jit gives only its locations, which
 * error masking (errors.ts) cannot carry over; graphql-js's error has the same locations from its source and
 * positions, and takes the thrown error's extensions.
 */
function asGraphqlJsError(error: GraphQLError, source: Source | undefined): GraphQLError {
  if (error.nodes || !source) return error;
  return new GraphQLError(error.message, {
    source,
    positions: error.locations?.map((location) => offsetOf(source.body, location)),
    path: error.path,
    originalError: error.originalError ?? undefined,
    ...(error.originalError ? {} : { extensions: error.extensions }),
  });
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

export function jitExecution(): Plugin {
  // Per parsed document, per operation name: 'seen' after its first execution, then its compiled query, or null
  // when graphql-js runs it.
  const compiled = new WeakMap<DocumentNode, Map<string, Compiled | null | 'seen'>>();
  const compiledFor = (args: ExecutionArgs): Compiled | null => {
    const name = args.operationName ?? '';
    const byName = compiled.get(args.document) ?? compiled.set(args.document, new Map()).get(args.document)!;
    const entry = byName.get(name);
    if (entry === undefined) {
      const size = args.document.loc?.source.body.length;
      byName.set(name, size !== undefined && size <= MAX_COMPILED_SOURCE ? 'seen' : null);
      return null;
    }
    if (entry !== 'seen') return entry;
    const operation = operationOf(args.document, args.operationName);
    const result = operation && operation.operation !== 'subscription' ? compileQuery(args.schema, args.document, args.operationName ?? undefined) : null;
    const query = result && isCompiledQuery(result) ? (result as Compiled) : null;
    byName.set(name, query);
    return query;
  };
  return {
    onExecute({ executeFn, setExecuteFn }) {
      setExecuteFn((args: ExecutionArgs) => {
        const query = compiledFor(args);
        if (!query) return executeFn(args);
        // graphql-js puts errors before data (JSON key order is part of the answer's bytes).
        const answer = (result: ExecutionResult) => {
          if (!('data' in result) || result.data === undefined) return executeFn(args);
          if (!result.errors?.length) return { data: result.data };
          const source = args.document.loc?.source;
          return { errors: result.errors.map((error) => asGraphqlJsError(error, source)), data: result.data };
        };
        const result = query.query(args.rootValue, args.contextValue, (args.variableValues ?? {}) as Record<string, unknown>);
        return isThenable(result) ? Promise.resolve(result as PromiseLike<ExecutionResult>).then(answer) : answer(result as ExecutionResult);
      });
    },
  };
}
