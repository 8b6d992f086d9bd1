// A fixed vocabulary: the values a field may take that the code decides, not the tenant (a linkable type, a role,
// an item type ...; statuses and labels are the tenant's and are not vocabularies). A vocabulary is the readonly
// array of its wire values, as before (validation, OpenAPI enums and TypeScript unions use it as it is), with a
// name recorded beside it: GraphQL serves every field whose `enum` is a named vocabulary as one enum type of that
// name (src/graphql/schema/vocabularies.ts). REST keeps the wire values unchanged.

export interface VocabularyInfo {
  /** The GraphQL enum type name: "LinkableType". */
  name: string;
  /** What the vocabulary is, in prose. */
  description: string;
  /** What a value means, in prose (no snake_case names: GraphQL descriptions show it). */
  describe?: (value: string) => string;
}

const named = new WeakMap<readonly string[], VocabularyInfo>();

/** Names a vocabulary and returns the same array (typed by its members). */
export function vocabulary<const V extends readonly string[]>(name: string, values: V, texts: { description: string; describe?: (value: V[number]) => string }): V {
  named.set(values, { name, description: texts.description, describe: texts.describe as VocabularyInfo['describe'] });
  return values;
}

/** The name and texts of a vocabulary; undefined for an unnamed enum array (scopes, API versions). */
export function vocabularyOf(values: readonly string[] | undefined): VocabularyInfo | undefined {
  return values === undefined ? undefined : named.get(values);
}
