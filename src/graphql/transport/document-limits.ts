import {
  GraphQLError,
  Lexer,
  Source,
  TokenKind,
} from 'graphql';
import { AppError, type ErrorCode } from '../../kernel/errors.ts';
import { appErrorExtensions } from '../schema/errors.ts';

import { limits } from '../schema/cost.ts';

// Step 1 of the limits (docs/graphql-limits.md): a document is lexed once before parsing; too many tokens or
// brackets nested too deep is refused before the recursive parser sees it.

/** A catalog error as a GraphQL request error: its HTTP status (and headers) answer the request. */
export function requestError(error: AppError, errorsUrl: string, requestId?: string): GraphQLError {
  return new GraphQLError(error.detail ?? error.title, {
    extensions: { ...appErrorExtensions(error, errorsUrl, requestId), http: { status: error.status, headers: error.headers } },
  });
}

export function refusal(code: ErrorCode, detail: string): AppError {
  return new AppError(code, detail);
}

/**
 * Lexes the document once, without recursion, before any parser sees it (each transport calls this first): more
 * than maxTokens tokens, or brackets nested deeper than maxNesting, is the refusal returned. Syntax errors are
 * left to the parser, which reports them with their location.
 */
export function documentRefusal(source: string | null | undefined): AppError | null {
  if (!source) return null;
  const lexer = new Lexer(new Source(source));
  let tokens = 0;
  let nesting = 0;
  try {
    for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
      tokens += 1;
      if (tokens > limits.maxTokens) return refusal('graphql.too_many_tokens', `The document has more than ${limits.maxTokens} tokens.`);
      if (token.kind === TokenKind.BRACE_L || token.kind === TokenKind.BRACKET_L || token.kind === TokenKind.PAREN_L) {
        nesting += 1;
        if (nesting > limits.maxNesting) return refusal('graphql.depth_exceeded', `The document nests brackets more than ${limits.maxNesting} levels deep.`);
      } else if (token.kind === TokenKind.BRACE_R || token.kind === TokenKind.BRACKET_R || token.kind === TokenKind.PAREN_R) {
        nesting -= 1;
      }
    }
  } catch {
    // A lexical error: the parser reports it.
  }
  return null;
}

