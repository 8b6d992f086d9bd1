import { addError } from '../../kernel/body.ts';
import type { RequestContext } from '../../kernel/context.ts';
import { AppError, type FieldErrors } from '../../kernel/errors.ts';
import { grants, type Scope } from '../../kernel/scopes.ts';
import { topicAvailable, topicReadScopes, unavailableReason, type TopicCatalog } from '../../kernel/topics.ts';

/**
 * The topics of a subscription (a webhook endpoint's, a GraphQL `events` subscription's), checked in the order
 * the spec gives: none, or only blank names, is validation.no_topics; a name the catalog does not know is a field
 * error (validation.failed); a registered topic the account cannot have now is topic.not_available; a topic
 * whose records the key may not read is auth.scope_missing (a subscription must not leak what a GET would not
 * show). Returns the names, trimmed and without duplicates.
 */
export function checkTopics(ctx: RequestContext, sent: readonly string[], catalog: TopicCatalog, errors?: FieldErrors): string[] {
  const topicNamed = (name: string) => catalog.topicNamed(name);
  const names = [...new Set(sent.map((name) => name.trim()).filter((name) => name !== ''))];
  if (names.length === 0) throw new AppError('validation.no_topics', 'Subscribe to at least one topic: GET /webhooks/available_topics lists them.');
  const unknown = names.filter((name) => !topicNamed(name));
  if (unknown.length > 0) {
    const message = `has unknown topic${unknown.length > 1 ? 's' : ''} ${unknown.map((name) => `"${name}"`).join(', ')} (GET /webhooks/available_topics lists them)`;
    if (errors) {
      addError(errors, 'topics', message);
      return names;
    }
    throw new AppError('validation.failed', `topics ${message}`, { errors: { topics: [message] } });
  }
  const unavailable = names.map((name) => topicNamed(name)!).filter((topic) => !topicAvailable(topic, ctx.principal.account.modules));
  if (unavailable.length > 0) {
    throw new AppError('topic.not_available', unavailable.map(unavailableReason).join(' '), { topics: unavailable.map((topic) => topic.name) });
  }
  for (const name of names) {
    const scope = topicReadScopes(topicNamed(name)!).find((needed) => !grants(ctx.principal.key.scopes, needed));
    if (scope) {
      throw new AppError('auth.scope_missing', `Topic ${name} carries records this key may not read: it needs the scope ${scope}.`, {
        required_scope: scope,
        granted_scopes: ctx.principal.key.scopes,
      });
    }
  }
  return names;
}
