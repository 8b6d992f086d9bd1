import type { AccountModules } from './context.ts';
import type { EventAction } from './events.ts';
import type { Scope, ScopeResource } from './scopes.ts';

// What a topic is, and the rules that read one: whether an account can subscribe to it now, why not, which a key
// may subscribe to. The catalog itself (every topic, by name) is built from the resource declarations by the
// domain (src/events/topics.ts) and handed to those who check topics (a webhook endpoint's hook, HookArgs.topics).

export interface Topic {
  /** `job.status_changed` */
  name: string;
  /** The class of the record the event carries in `data.object`: "Job". */
  resource: string;
  /** The record's body key and GraphQL stem: "job". */
  recordName: string;
  /** The scope whose read permission a subscriber needs (null: see readBy, or a topic not served). */
  scope: ScopeResource | null;
  /**
   * A nested resource's topic (note.created): the record's `field` (its parent's type) says which scope reads it,
   * by the parent's type. The feed lists the events whose parent the key may read; a subscription (a webhook
   * endpoint, a GraphQL subscription) receives every parent's, so it needs every one of these scopes.
   */
  readBy?: { field: string; scopes: Readonly<Record<string, ScopeResource>> };
  action: EventAction;
  description: string;
  /** Why it cannot be subscribed to: a module gates it. */
  gate: { module: 'System' } | null;
}

/** The topic catalog: every topic, by name. */
export interface TopicCatalog {
  topics(): readonly Topic[];
  topicNamed(name: string): Topic | undefined;
}

const words = (name: string) => name.replace(/_/g, ' ');

/** Whether an account can subscribe to the topic now (its module on). */
export function topicAvailable(topic: Topic, modules: AccountModules): boolean {
  if (!topic.gate) return true;
  return modules[topic.gate.module] === 'on';
}

/** The reason a registered topic is not available, for the 422's detail. */
export function unavailableReason(topic: Topic): string {
  if (!topic.gate) return '';
  return `${topic.name} is not available while the account's ${topic.gate.module} module is off.`;
}

/** The read scopes a subscriber to the topic needs, all of them: its scope, or each parent's (readBy); none when it is not served. */
export function topicReadScopes(topic: Topic): Scope[] {
  const resources = topic.readBy ? [...new Set(Object.values(topic.readBy.scopes))] : topic.scope === null ? [] : [topic.scope];
  return resources.map((resource) => `${resource}:read` as Scope);
}

/** Whether a key may subscribe to the topic: it is served and the key holds every read scope it needs. */
export function mayReadTopic(topic: Topic, canRead: (scope: ScopeResource) => boolean): boolean {
  const scopes = topicReadScopes(topic);
  return scopes.length > 0 && scopes.every((scope) => canRead(scope.slice(0, -':read'.length) as ScopeResource));
}

/**
 * The topics a key can subscribe to now: available to its account (module on, resource served) and carrying
 * records the key may read.
 */
export function subscribableTopics(catalog: TopicCatalog, modules: AccountModules, canRead: (scope: ScopeResource) => boolean): { name: string; resource: string; description: string }[] {
  return catalog.topics()
    .filter((topic) => topicAvailable(topic, modules) && mayReadTopic(topic, canRead))
    .map((topic) => ({ name: topic.name, resource: topic.resource, description: topic.description }));
}

