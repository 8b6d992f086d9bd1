import { isInputError, type AppError } from '../../kernel/errors.ts';
import { appErrorOf } from './errors.ts';
import { camelPath } from '../../kernel/naming.ts';
import { graphqlText } from './descriptions.ts';

// Mutation payloads carry `userErrors: [UserError!]!`, as Shopify's and Jobber's APIs do: what the caller can fix
// by changing what it sent (the catalog codes marked `input`: validation, status, number, stale or missing ETag,
// a record that does not exist, conflicts of the records it named) is answered in the payload, with the path of
// the argument at fault in GraphQL names; authentication, scope, rate limit and internal errors stay top-level
// errors with extensions.code. A payload with userErrors has no record: nothing was written.

export interface UserError {
  /** The path of the argument at fault, in GraphQL names (["input", "lineitems", "0", "quantity"]); null when none. */
  field: string[] | null;
  message: string;
  /** The catalog's dotted code (validation.failed ...). */
  code: string;
}

/** The names of a mutation's arguments, to point at: the record id, the input object and the ETag. */
export interface MutationArgs {
  id?: string;
  input?: string;
  ifMatch?: string;
}

/** The userErrors of an input error. */
export function userErrorsOf(error: AppError, args: MutationArgs): UserError[] {
  const input = args.input ?? 'input';
  const code = error.code;
  const errors = error.extra.errors as Record<string, string[]> | undefined;
  if (code === 'validation.failed' && errors && Object.keys(errors).length > 0) {
    return Object.entries(errors).flatMap(([key, messages]) => {
      const path = camelPath(key);
      return messages.map((message) => ({ field: [input, ...path.split('.')], message: `${path} ${graphqlText(message)}`, code }));
    });
  }
  const field =
    code === 'status.transition_invalid'
      ? [input, 'status']
      : code === 'number.immutable'
        ? [input, 'number']
        : code === 'precondition.failed' || code === 'precondition.required'
          ? args.ifMatch
            ? [args.ifMatch]
            : null
          : code === 'resource.not_found' && args.id
            ? [args.id]
            : null;
  // The ETag travels in the ifMatch argument, not in a header: the REST wording of these two does not apply.
  const message =
    code === 'precondition.required'
      ? 'ifMatch is missing: pass the etag of the record as last read.'
      : code === 'precondition.failed'
        ? `ifMatch does not match the current etag of the record${error.values?.currentEtag ? ` ${error.values.currentEtag}` : ''}: read it again.`
        : error.detail === null
          ? error.title
          : graphqlText(error.detail);
  return [{ field, message, code }];
}

/**
 * The payload of a mutation: what `write` answers with empty userErrors, or, when it fails with an input error
 * (thrown at once or later), only the userErrors (the payload's record fields are then null). Other errors are
 * thrown on.
 */
export async function payloadOf<T extends object>(write: () => Promise<T>, args: MutationArgs): Promise<T & { userErrors: UserError[] }> {
  try {
    return { ...(await write()), userErrors: [] };
  } catch (error) {
    const appError = appErrorOf(error);
    if (appError && isInputError(appError.code)) return { userErrors: userErrorsOf(appError, args) } as never;
    throw error;
  }
}
