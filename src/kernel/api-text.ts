// Texts written once for both APIs: the descriptions in the declarations (fields, child collections, relations,
// wire shapes, actions). Each API has its own names for the same fields, so a text names a field, a parameter or
// an argument with a marker, `{wire_name}` (dotted for a nested one: `{lineitems.unit_price}`), and each adapter
// renders the marker in its own vocabulary: the OpenAPI document writes the wire name (`site_id`), GraphQL its
// camelCase name (`siteId`, src/graphql/schema/descriptions.ts). Everything else in a text is plain prose that reads the
// same on both APIs: no HTTP methods, paths, headers or status codes (the OpenAPI builders add those), and no
// bare snake_case names (test/graphql/descriptions.test.ts refuses them in the GraphQL schema).
//
// Error codes (`system.duplicate`) and scopes (`tax_rates:read`) are values, identical on both APIs: they are
// written as they are.

/**
 * A marker: `{` a snake_case wire name, dotted segments allowed `}`; after the first, a segment may also be an index
 * or an id (`{lineitems.0.quantity}`, `{custom_fields.<definition id>}`), which every API writes as it is.
 */
const marker = /\{([a-z][a-z0-9_]*(?:\.[a-z0-9][a-z0-9_-]*)*)\}/g;

/** How an API spells a field: wire name -> its name in that API. */
export type FieldNaming = (wireName: string) => string;

/**
 * Error texts use markers too (a field error's message, a problem's detail: "must not be before {scheduled_start}"),
 * rendered by each adapter as it answers: REST with wire names (src/http/problem.ts), GraphQL with its own names.
 */

/** The text with every marker replaced by the field's name in one API (each dotted segment on its own). */
export function renderText(text: string, naming: FieldNaming): string {
  return text.replace(marker, (_, path: string) => path.split('.').map(naming).join('.'));
}

/** The text as the REST API (OpenAPI) reads it: markers become wire names. */
export function wireText(text: string): string;
export function wireText(text: string | undefined): string | undefined;
export function wireText(text: string | undefined): string | undefined {
  return text === undefined ? undefined : renderText(text, (name) => name);
}

/** The article of a noun ("a job", "an estimate", "a user"): for sentences generated from names. */
export function article(noun: string): 'a' | 'an' {
  return /^[aeiou]/i.test(noun) && !/^(u[nsr][aeiou]|uni|eu|one)/i.test(noun) ? 'an' : 'a';
}

/** The article of a noun at the start of a sentence ("A job", "An estimate"). */
export function leadingArticle(noun: string): 'A' | 'An' {
  return article(noun) === 'an' ? 'An' : 'A';
}

/** The noun with its article: "an estimate". */
export function withArticle(noun: string): string {
  return `${article(noun)} ${noun}`;
}

/** The description of a written field on a write (create or update input): what it is, then how a write treats it. */
export function writeDescription(spec: { description?: string; writeRule?: string }): string | undefined {
  const parts = [spec.description, spec.writeRule].filter((part): part is string => Boolean(part));
  return parts.length > 0 ? parts.join(' ') : undefined;
}
