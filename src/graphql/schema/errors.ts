import { GraphQLError, type GraphQLErrorOptions } from 'graphql';
import type { Logger } from 'pino';
import { AppError, detailIn, docSlug, errorCatalog, type ErrorCode } from '../../kernel/errors.ts';
import { graphqlSubjectName } from './list-arguments.ts';
import { camelPath } from '../../kernel/naming.ts';
import { graphqlText } from './descriptions.ts';

// Every AppError becomes a GraphQL error whose extensions carry the same dotted code as the REST problem, its
// HTTP status, title and doc_url, and the problem's extra fields in camelCase (requiredScope, grantedScopes,
// maxLimit, reason; validation.failed `errors` keyed by GraphQL field names). Anything else is internal.error
// with a fixed message: yoga's error masking calls maskError below, so no message, stack or SQL leaks.
// Errors of the GraphQL language itself keep graphql-js's messages and get a catalog code by kind, with docUrl:
// graphql.parse_failed (syntax), graphql.validation_failed (the document against the schema) and
// graphql.variables_invalid (variable values against their declared types).

function camelExtra(extra: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(extra)) {
    if (key === 'errors' && value && typeof value === 'object' && !Array.isArray(value)) {
      out.errors = Object.fromEntries(Object.entries(value).map(([field, messages]) => [camelPath(field), (messages as string[]).map((message) => graphqlText(message))]));
    } else {
      out[camelPath(key)] = value;
    }
  }
  return out;
}

export function appErrorExtensions(error: AppError, errorsUrl: string, requestId?: string): Record<string, unknown> {
  return {
    code: error.code,
    status: error.status,
    title: error.title,
    docUrl: `${errorsUrl}/${docSlug(error.code)}`,
    ...(requestId ? { requestId } : {}),
    ...camelExtra(error.extra),
  };
}

/** The AppError behind a GraphQL error, if any (resolvers' errors arrive wrapped with a path). */
export function appErrorOf(error: unknown): AppError | null {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth += 1) {
    if (current instanceof AppError) return current;
    current = (current as { originalError?: unknown }).originalError;
  }
  return null;
}

function located(error: unknown): GraphQLErrorOptions {
  if (!(error instanceof GraphQLError)) return {};
  return { nodes: error.nodes, source: error.source, positions: error.positions, path: error.path };
}

/** An AppError as a GraphQL error of a field (HTTP status stays 200: other fields may have data). */
export function fieldError(source: unknown, appError: AppError, errorsUrl: string, requestId?: string): GraphQLError {
  // A list refusal names its subject as the caller wrote it (first, filter.statusIn ...).
  const detail = detailIn(appError, graphqlSubjectName);
  return new GraphQLError(detail === null ? appError.title : graphqlText(detail), {
    ...located(source),
    extensions: appErrorExtensions(appError, errorsUrl, requestId),
  });
}

function isCatalogCode(code: unknown): boolean {
  return typeof code === 'string' && code in errorCatalog;
}

/** True for errors graphql-js raised about the document or variables (no thrown error behind them). */
function isLanguageError(error: unknown): boolean {
  let current: unknown = error;
  while (current instanceof GraphQLError) {
    if (!current.originalError) return true;
    current = current.originalError;
  }
  return false;
}

/**
 * The catalog code of an error of the GraphQL language (yoga marks parse and validation errors; graphql-js words
 * variable errors), or null for an error of a protocol with codes of its own that clients act on
 * (PERSISTED_QUERY_NOT_FOUND of automatic persisted queries), which stays as it is.
 */
function languageCode(error: GraphQLError): ErrorCode | null {
  const marked = error.extensions?.code;
  if (marked === 'GRAPHQL_PARSE_FAILED' || (marked === undefined && error.message.startsWith('Syntax Error:'))) return 'graphql.parse_failed';
  if (marked === 'GRAPHQL_VALIDATION_FAILED') return 'graphql.validation_failed';
  if (marked !== undefined && marked !== 'BAD_USER_INPUT') return null;
  return error.message.startsWith('Variable "$') ? 'graphql.variables_invalid' : 'graphql.validation_failed';
}

/**
 * A language error with its graphql-js message and locations, and the catalog's extensions for its kind. yoga's
 * own extensions stay (`http`, which sets the HTTP status and is not served).
 */
function languageError(error: GraphQLError, errorsUrl: string, requestId?: string): GraphQLError {
  const code = languageCode(error);
  if (code === null) return error;
  const entry = errorCatalog[code];
  return new GraphQLError(error.message, {
    ...located(error),
    extensions: { ...error.extensions, code, status: entry.status, title: entry.title, docUrl: `${errorsUrl}/${docSlug(code)}`, ...(requestId ? { requestId } : {}) },
  });
}

/**
 * The errors of an answer made before execution, each with a catalog code and the request id: language errors get
 * the code of their kind, catalog errors keep theirs (the request id added when missing). Others pass unchanged.
 */
export function catalogErrors(errors: readonly GraphQLError[], errorsUrl: string, requestId: string): GraphQLError[] {
  return errors.map((error) => {
    if (error.extensions?.requestId) return error;
    if (isCatalogCode(error.extensions?.code)) return new GraphQLError(error.message, { ...located(error), extensions: { ...error.extensions, requestId } });
    if (isLanguageError(error)) return languageError(error, errorsUrl, requestId);
    return error;
  });
}

export function internalError(source: unknown, errorsUrl: string, requestId?: string): GraphQLError {
  return fieldError(source, new AppError('internal.error', 'An unexpected error occurred; quote the request id when reporting it.'), errorsUrl, requestId);
}

/**
 * The masking of every error of a result: AppErrors keep their code and extras, catalog and language errors
 * stay, anything else becomes internal.error (logged by kind only). With a request id (the execution of an
 * admitted request, see withRequestId) it goes on every catalog error; yoga's maskError calls it without one,
 * after that, and then only meets errors that are already masked or that arose outside an execution.
 */
export function maskErrorWith(errorsUrl: string, logger: Logger) {
  return (error: unknown, requestId?: string): Error => {
    const appError = appErrorOf(error);
    if (appError) {
      const id = requestId ?? (error instanceof GraphQLError ? (error.extensions?.requestId as string | undefined) : undefined);
      return fieldError(error, appError, errorsUrl, id);
    }
    if (error instanceof GraphQLError && isCatalogCode(error.extensions?.code)) {
      if (!requestId || error.extensions.requestId) return error;
      return new GraphQLError(error.message, { ...located(error), extensions: { ...error.extensions, requestId } });
    }
    if (error instanceof GraphQLError && isLanguageError(error)) return languageError(error, errorsUrl, requestId);
    const e = (error instanceof GraphQLError ? error.originalError : error) as { name?: string; code?: string; message?: string } | undefined;
    // Only the kind of failure is logged at error level; its message may hold SQL or data.
    logger.error({ request_id: requestId, err_name: e?.name, err_code: e?.code }, 'unhandled GraphQL error');
    logger.debug({ request_id: requestId, err_message: String(e?.message ?? '').slice(0, 500) }, 'unhandled GraphQL error detail');
    return internalError(error, errorsUrl, requestId);
  };
}

/** The path of an error with its list indices as "*": ["jobs", "nodes", "*", "customer"]. */
function pathPattern(path: readonly (string | number)[]): (string | number)[] {
  return path.map((step) => (typeof step === 'number' ? '*' : step));
}

/**
 * Masks the errors of an execution result, with the request id on each (internal.error included), and answers
 * one error per kind and field path pattern: the same error of the same field in every row of a list (a missing
 * scope on jobs.nodes.customer) is one error, at the path of its first row, with `pathPattern` and `count`
 * (how many rows it stands for) in its extensions. The data keeps its null at every row.
 */
export function withRequestId(errors: readonly GraphQLError[], mask: ReturnType<typeof maskErrorWith>, requestId: string): GraphQLError[] {
  const out: { error: GraphQLError; pattern?: (string | number)[]; count: number }[] = [];
  const byKey = new Map<string, (typeof out)[number]>();
  for (const raw of errors) {
    const error = mask(raw, requestId) as GraphQLError;
    const path = error.path ?? [];
    if (!path.some((step) => typeof step === 'number')) {
      out.push({ error, count: 1 });
      continue;
    }
    const pattern = pathPattern(path);
    const key = JSON.stringify([error.extensions?.code ?? null, error.message, pattern]);
    const known = byKey.get(key);
    if (known) known.count += 1;
    else {
      const entry = { error, pattern, count: 1 };
      byKey.set(key, entry);
      out.push(entry);
    }
  }
  return out.map(({ error, pattern, count }) =>
    pattern ? new GraphQLError(error.message, { ...located(error), extensions: { ...error.extensions, pathPattern: pattern, count } }) : error,
  );
}
