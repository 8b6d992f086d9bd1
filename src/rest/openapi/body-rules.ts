import type { ZodOpenAPIMetadata } from '@asteasolutions/zod-to-openapi';
import { NON_BLANK } from '../../kernel/fields.ts';

// Rules of write bodies that resources enforce in their own code (a hook, a service) instead of in a declaration
// the document is generated from, and that JSON Schema states exactly. Each is written here once, next to the name
// of the code that enforces it, and the schemas and examples take it from here; test/rest/openapi-strictness.test.ts
// sends a request breaking each keyword this produces and sees the server refuse it, so the two cannot drift
// apart unnoticed. A rule that moves into a declaration (a FieldSpec, a child collection) is derived from there and
// leaves this table.

/** What a body refuses beyond each field's own rules. A member is given when it is present and not null. */
export interface BodyRules {
  /**
   * Lists refused when empty wherever they are given (`minItems: 1`); with `requiredOnCreate` also refused when
   * missing on create (the create body requires them); with `nonBlankEntry` a list of only blank strings is refused
   * too (`contains` a string with a non-blank character).
   */
  nonEmpty?: Readonly<Record<string, { requiredOnCreate?: boolean; nonBlankEntry?: boolean }>>;
  /** Pairs of fields given together or not at all, in the bodies that take both (`dependentRequired` both ways). */
  together?: readonly (readonly [string, string])[];
  /**
   * Two ways of giving the body: when `given` is given, none of `excludes` may be; when it is not, `otherwise` is
   * required (`if`/`then`/`else`).
   */
  alternative?: { given: string; excludes: readonly string[]; otherwise: string };
}

/** The rules of resources' create and update bodies, by resource name. */
const resourceRules: Readonly<Record<string, BodyRules>> = {
  // contactResource.hooks.beforeWrite (src/resources/contacts/contact.resource.ts): "is missing ({linkable_id} and
  // {linkable_type} go together)".
  contact: { together: [['linkable_id', 'linkable_type']] },
  // beforeWrite → checkTopics (src/resources/webhooks/topic-rules.ts): no topic, or only blank ones, is 422
  // validation.no_topics, on create and update.
  webhook_endpoint: { nonEmpty: { topics: { nonBlankEntry: true } } },
  // inventoryTransferResource.hooks.beforeWrite (src/resources/stock/inventory-transfer.resource.ts): lines missing
  // or [] is 422 "must name at least one item".
  inventory_transfer: { nonEmpty: { lines: { requiredOnCreate: true } } },
};

/** The rules of actions' field bodies, by action name. */
const actionRules: Readonly<Record<string, BodyRules>> = {
  // replayRequest (src/resources/webhooks/webhook.service.ts): event_ids [] is "must list at least one event id";
  // event_ids with since or until "cannot be combined"; without event_ids, since "is required".
  replayWebhookEndpoint: { nonEmpty: { event_ids: {} }, alternative: { given: 'event_ids', excludes: ['since', 'until'], otherwise: 'since' } },
};

export const rulesOfResource = (name: string): BodyRules => resourceRules[name] ?? {};
export const rulesOfAction = (name: string): BodyRules => actionRules[name] ?? {};

/** The keywords a member's own schema gets from the rules (a list that must not be empty), if any. */
export function memberKeywords(rules: BodyRules, name: string): ZodOpenAPIMetadata | undefined {
  const rule = rules.nonEmpty?.[name];
  if (!rule) return undefined;
  return { minItems: 1, ...(rule.nonBlankEntry ? { contains: { type: 'string', pattern: NON_BLANK.source } } : {}) } as ZodOpenAPIMetadata;
}

/** Whether the create body requires the member although its declaration makes it optional. */
export const requiredOnCreate = (rules: BodyRules, name: string): boolean => rules.nonEmpty?.[name]?.requiredOnCreate === true;

const given = (name: string) => ({ required: [name], properties: { [name]: { not: { type: 'null' } } } });

/** The keywords the body object gets from the rules between its members (`members`: those the body takes). */
export function objectKeywords(rules: BodyRules, members: readonly string[]): ZodOpenAPIMetadata | undefined {
  const takes = (name: string) => members.includes(name);
  const keywords: Record<string, unknown> = {};
  const pairs = (rules.together ?? []).filter(([a, b]) => takes(a) && takes(b));
  if (pairs.length > 0) keywords.dependentRequired = Object.fromEntries(pairs.flatMap(([a, b]) => [[a, [b]], [b, [a]]]));
  const alternative = rules.alternative;
  if (alternative && takes(alternative.given) && takes(alternative.otherwise)) {
    keywords.if = given(alternative.given);
    keywords.then = { properties: Object.fromEntries(alternative.excludes.filter(takes).map((name) => [name, { type: 'null' }])) };
    keywords.else = given(alternative.otherwise);
  }
  return Object.keys(keywords).length > 0 ? (keywords as ZodOpenAPIMetadata) : undefined;
}

/**
 * The sentence a body's description adds for the rules between its members, for readers (the keywords say the
 * same to tools).
 */
export function rulesNote(rules: BodyRules, members: readonly string[]): string {
  const takes = (name: string) => members.includes(name);
  const parts = (rules.together ?? []).filter(([a, b]) => takes(a) && takes(b)).map(([a, b]) => `${a} and ${b} go together: give both or neither.`);
  const alternative = rules.alternative;
  if (alternative && takes(alternative.given) && takes(alternative.otherwise)) {
    parts.push(`Either ${alternative.given} (then no ${alternative.excludes.join(' or ')}) or ${alternative.otherwise}; null counts as not given.`);
  }
  return parts.join(' ');
}

/** An example of the body that keeps to the rules: of the two ways of an alternative, the second, with `otherwise` only. */
export function exampleWithin(rules: BodyRules, example: Record<string, unknown>): Record<string, unknown> {
  const alternative = rules.alternative;
  if (!alternative) return example;
  const dropped = new Set([alternative.given, ...alternative.excludes.filter((name) => name !== alternative.otherwise)]);
  return Object.fromEntries(Object.entries(example).filter(([name]) => !dropped.has(name)));
}
