import { article, leadingArticle } from '../kernel/api-text.ts';
import { type Topic, type TopicCatalog } from '../kernel/topics.ts';
import type { EventAction } from '../kernel/events.ts';
import { serves, type ResourceDefinition } from '../kernel/resource.ts';
import { resources } from '../resources/index.ts';
import { nestingOf, parentsOf } from '../kernel/nesting.ts';

// The topic catalog: every event the service emits, by name, read from the resource declarations. Webhook
// subscriptions, GraphQL subscriptions, GET /events filters, GET /webhooks/available_topics and the OpenAPI and
// AsyncAPI documents all read this one list, so a topic exists in all of them or in none.
//
// Names are lowercase and dotted like error codes: `<resource>.<action>`. A topic is "registered but not
// available" when its module is off for the account (system.* with the System module off) or when its resource
// is catalogued by the spec but not served yet (purchase_order.*): subscribing to one is 422 topic.not_available.


const words = (name: string) => name.replace(/_/g, ' ');

const standardDescriptions: Partial<Record<EventAction, (name: string) => string>> = {
  created: (name) => `${leadingArticle(name)} ${words(name)} was created; \`data.object\` is the record as REST serves it.`,
  updated: (name) =>
    `${leadingArticle(name)} ${words(name)} was changed; \`data.object\` is the record after the change and \`data.changed_fields\` names the fields whose values moved (wire names; updated_at is left out).`,
  deleted: (name) => `${leadingArticle(name)} ${words(name)} was deleted; \`data.object\` is the record as it was before.`,
  status_changed: (name) =>
    `The status of ${article(name)} ${words(name)} moved; \`data.previous_status\` and \`data.status\` give both (the same change also emits \`${name}.updated\`).`,
};

/** The standard writes a resource serves, and status_changed with a status. */
function defaultActions(def: ResourceDefinition): EventAction[] {
  const actions: EventAction[] = [];
  if (serves(def, 'create')) actions.push('created');
  if (serves(def, 'update')) actions.push('updated');
  if (serves(def, 'delete')) actions.push('deleted');
  if (def.conventions.status) actions.push('status_changed');
  return actions;
}

/** A nested resource's records are read with their parent's read scope, by the parent's type (src/kernel/nesting.ts). */
function readBy(def: ResourceDefinition): Topic['readBy'] {
  const nesting = nestingOf(def);
  if (!nesting) return undefined;
  return { field: nesting.typeColumn, scopes: Object.fromEntries(parentsOf(def, resources).map(({ type, parent }) => [type, parent.scope])) };
}

function resourceTopics(def: ResourceDefinition): Topic[] {
  const gate = def.events?.requiresModule ? { module: def.events.requiresModule } : null;
  const nested = readBy(def);
  const topic = (action: EventAction, description: string): Topic => ({
    name: `${def.name}.${action}`,
    resource: def.className,
    recordName: def.name,
    scope: nested ? null : def.scope,
    ...(nested ? { readBy: nested } : {}),
    action,
    description,
    gate,
  });
  return [
    ...(def.events?.actions ?? defaultActions(def)).map((action) => topic(action, standardDescriptions[action]!(def.name))),
    ...(def.events?.extra ?? []).map((extra) => topic(extra.action, extra.description)),
  ];
}

/** Contact linkages are written through their contact (POST /contacts/{id}/linkages): not a declared resource. */
const linkageTopics: Topic[] = (['created', 'updated', 'deleted'] as const).map((action) => ({
  name: `contact_linkage.${action}`,
  resource: 'ContactLinkage',
  recordName: 'contact_linkage',
  scope: 'contacts',
  action,
  description: standardDescriptions[action]!('contact_linkage'),
  gate: null,
}));

let catalog: { list: readonly Topic[]; byName: ReadonlyMap<string, Topic> } | null = null;

/** Built on first use: the webhook endpoint's declaration checks topics, and is itself one of the resources read here. */
function built() {
  if (!catalog) {
    const list = [...resources.flatMap(resourceTopics), ...linkageTopics].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    catalog = { list, byName: new Map(list.map((topic) => [topic.name, topic])) };
  }
  return catalog;
}

/** Every topic, by name. */
export function topics(): readonly Topic[] {
  return built().list;
}

export function topicNamed(name: string): Topic | undefined {
  return built().byName.get(name);
}

/** The declared resources that have topics, each with its topics: one typed GraphQL subscription each (`<name>Events`). */
export function topicsByResource(): { def: ResourceDefinition; topics: Topic[] }[] {
  return resources.map((def) => ({ def, topics: topics().filter((topic) => topic.recordName === def.name) })).filter((group) => group.topics.length > 0);
}

/** The catalog as one value, for those below the domain that check topics (HookArgs.topics, the webhook service). */
export const topicCatalog: TopicCatalog = { topics, topicNamed };
