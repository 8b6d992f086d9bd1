import { exampleCursor } from './examples.ts';
import { z } from './zod.ts';

// The success bodies: a single record is {data}, a list {data, has_more, next_cursor}; and their examples.

export function singleEnvelope(record: z.ZodType): z.ZodObject {
  return z.object({ data: record });
}

/**
 * A keyset-paginated list: next_cursor is the cursor of the next page, the same as in the Link header's URL.
 * has_more and next_cursor read the same on every list: shared components.
 */
export function listEnvelope(record: z.ZodType): z.ZodObject {
  return z.object({
    data: z.array(record),
    has_more: z.boolean().openapi('HasMore', { description: 'true when another page follows; then next_cursor and the Link header name it.' }),
    next_cursor: z
      .string()
      .nullable()
      .openapi('NextCursor', { description: 'The opaque cursor of the next page: pass it as the cursor parameter (the Link header holds the same URL). null on the last page.' }),
  });
}

/** A list that is never paginated (`why`: "lookups are not paginated"): all of it on one page. */
export function unpaginatedListEnvelope(data: z.ZodArray, why: string): z.ZodObject {
  return z.object({
    data,
    has_more: z.boolean().openapi({ description: `Always false: ${why}.` }),
    next_cursor: z.null().openapi({ description: `Always null: ${why}.` }),
  });
}

export const singleExample = (record: unknown) => ({ data: record });

/** A page of a paginated list followed by another one. */
export const listExample = (record: unknown) => ({ data: [record], has_more: true, next_cursor: exampleCursor });

export const unpaginatedListExample = (entry: unknown) => ({ data: [entry], has_more: false, next_cursor: null });
