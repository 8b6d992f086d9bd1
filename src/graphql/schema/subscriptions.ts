import { topicReadScopes } from '../../kernel/topics.ts';
import type { EnumRef } from '@pothos/core';
import { MAX_REPLAY, type RecordEventFilter, type StreamItem } from '../../events/event-streams.ts';
import type { TailedEvent } from '../../events/tail.ts';
import { topicsByResource } from '../../events/topics.ts';
import { article, leadingArticle } from '../../kernel/api-text.ts';
import { asServed } from '../../kernel/record-serialization.ts';
import type { EventAction } from '../../kernel/events.ts';
import type { ResourceDefinition } from '../../kernel/resource.ts';
import { Single } from '../../kernel/resource-service.ts';
import type { Scope } from '../../kernel/scopes.ts';
import { requestContext, type Builder, type GraphQLContext } from './builder.ts';
import { shareLoaders } from './loaders.ts';
import { camelCase } from '../../kernel/naming.ts';
import type { ResourceTypes } from './resource-schema.ts';
import { enumValueName } from './vocabularies.ts';

// GraphQL subscriptions (graphql-ws on /graphql; src/graphql/transport/websocket.ts admits, caps and logs them), adapters of
// domain.eventStreams (src/events/event-streams.ts):
//   - events(topics, afterSeq): the webhook feed, every event of the topics as the webhook body (`envelope`,
//     the same JSON a webhook endpoint receives) with its seq;
//   - <resource>Events(filter, afterSeq), one per resource with topics, generated from the declarations: the
//     record as its GraphQL type (relations resolve through loaders shared by every subscriber of the event, so an
//     event fanned out to many subscriptions reads each relation once), its etag and the changed fields.
// A stream that must end (a revoked key, subscription.resync_required) serves its refusal as the last result's
// error, then completes.

const afterSeqText = `Replay the events after this seq (the last one you received) before going live, at most ${MAX_REPLAY}; more than that ends the subscription with subscription.resync_required. Omitted: only events committed from now on.`;

/** What an event of the action means, for a GraphQL reader (the catalog's texts speak of the webhook body). */
function topicText(typeName: string, action: EventAction): string {
  const subject = `${leadingArticle(typeName)} ${typeName}`;
  switch (action) {
    case 'created':
      return `${subject} was created.`;
    case 'updated':
      return `${subject} was changed; changedFields names what moved.`;
    case 'deleted':
      return `${subject} was deleted; the record is served as it was.`;
    case 'status_changed':
      return `The status of ${article(typeName)} ${typeName} moved (the same change is also an update).`;
    case 'test':
      return `A test event of ${article(typeName)} ${typeName}, sent on request.`;
    default:
      return `${subject} was ${action}.`;
  }
}

const records = new WeakMap<TailedEvent, Single>();

/** The event's record as its GraphQL type reads it, made once per event whatever the number of subscribers. */
function recordOf(def: ResourceDefinition, event: TailedEvent): Single {
  let single = records.get(event);
  if (!single) records.set(event, (single = new Single(asServed(def, event.row.payload as Record<string, unknown>), event.row.etag ?? '')));
  return single;
}

/** The event of a stream item (each event's result is metered afresh), or the refusal that ends the stream. */
function unwrap(item: StreamItem, ctx: GraphQLContext): TailedEvent {
  if ('refusal' in item) throw item.refusal;
  ctx.cost.nextEvent();
  return item.event;
}

export function registerSubscriptions(builder: Builder, types: ReadonlyMap<string, ResourceTypes>): void {
  builder.subscriptionType({
    description:
      'Live events over WebSocket (the graphql-transport-ws protocol on /graphql, the API key in the payload of the connection\'s init message, under authorization, as a Bearer token). Each subscription needs the read scope of the records it carries; a key holds at most 100 active subscriptions; a revoked key\'s subscriptions end within seconds.',
  });

  const EventMessage = builder.objectRef<TailedEvent>('EventMessage').implement({
    description: 'An event as a webhook endpoint receives it, with its seq.',
    fields: (t) => ({
      seq: t.field({ type: 'SafeInt', description: 'The position of the event in the account\'s feed (commit order); pass the last one you received as afterSeq when you subscribe again.', resolve: (event) => event.seq }),
      id: t.id({ description: 'The event id (the webhook-id header of its webhook deliveries).', resolve: (event) => event.row.id }),
      topic: t.string({ description: 'The topic, e.g. job.updated.', resolve: (event) => event.topic }),
      envelope: t.field({
        type: 'JSON',
        description: 'The event exactly as a webhook endpoint receives it (its id, type, timestamp, API version and data, with the record as REST serves it), as JSON.',
        resolve: (event, _args, ctx) => event.envelope(ctx.apiVersion),
      }),
    }),
  });

  builder.subscriptionField('events', (t) =>
    t.field({
      type: EventMessage,
      description: 'Every event of these topics in your account, as webhooks carry them. Topics are checked as a webhook endpoint\'s are (validation.no_topics, validation.failed, topic.not_available, auth.scope_missing).',
      args: {
        topics: t.arg.stringList({ required: true, description: 'Topic names, as availableWebhookTopics lists them.' }),
        afterSeq: t.arg({ type: 'SafeInt', description: afterSeqText }),
      },
      subscribe: (_root, args, ctx) => ctx.domain.eventStreams.ofTopics(requestContext(ctx), args.topics, args.afterSeq),
      resolve: (item: StreamItem, _args, ctx) => unwrap(item, ctx),
    }),
  );

  for (const { def, topics: own } of topicsByResource()) {
    const { record } = types.get(def.name)!;
    const field = camelCase(def.name);
    const typeName = def.className;
    const topicEnum = builder.enumType(`${typeName}EventTopic`, {
      description: `The topics of ${typeName} events.`,
      values: Object.fromEntries(own.map((topic) => [enumValueName(topic.name), { value: topic.name, description: topicText(typeName, topic.action) }])),
    }) as EnumRef<any, string>;
    const declared = def.events?.subscriptionFilters;
    const members = declared?.members;
    const Filter = builder.inputType(`${typeName}EventFilter`, {
      description: `Which ${typeName} events to receive: every condition given must hold. An event that changed a filtered field always passes, so a record leaving the filter is reported too.`,
      fields: (f) => ({
        ids: f.idList({ description: `Only events of these ${typeName} records.` }),
        ...(def.conventions.status ? { statuses: f.stringList({ description: 'Only records in one of these statuses.' }) } : {}),
        ...(declared?.window
          ? {
              from: f.field({ type: 'DateTime', description: `Only records whose ${camelCase(declared.window)} is at or after this time.` }),
              to: f.field({ type: 'DateTime', description: `Only records whose ${camelCase(declared.window)} is before this time.` }),
            }
          : {}),
        ...(members ? { [camelCase(members.name)]: f.idList({ description: members.description }) } : {}),
      }),
    });
    const Event = builder.objectRef<TailedEvent>(`${typeName}Event`).implement({
      description: `A change of ${article(typeName)} ${typeName}.`,
      fields: (t) => ({
        seq: t.field({ type: 'SafeInt', description: 'The position of the event in the account\'s feed; pass the last one you received as afterSeq when you subscribe again.', resolve: (event) => event.seq }),
        id: t.id({ description: 'The event id.', resolve: (event) => event.row.id }),
        topic: t.field({ type: topicEnum, description: 'What happened.', resolve: (event) => event.topic }),
        [field]: t.field({
          type: record,
          description: `The ${typeName} after the change (before it, for a deletion).`,
          resolve: (event, _args, ctx) => {
            shareLoaders(ctx, event);
            return recordOf(def, event);
          },
        }),
        etag: t.string({ nullable: true, description: 'The etag of the record after the change (pass it to the next update mutation); null for a deletion.', resolve: (event) => event.row.etag }),
        changedFields: t.stringList({
          nullable: true,
          description: 'The fields whose values moved (an update), by their GraphQL names; null for other topics.',
          resolve: (event) => ((event.row.details as { changed_fields?: string[] } | null)?.changed_fields ?? null)?.map(camelCase) ?? null,
        }),
      }),
    });
    const readScopes = [...new Set(own.flatMap(topicReadScopes))] as Scope[];
    builder.subscriptionField(`${field}Events`, (t) =>
      t.field({
        type: Event,
        description: `Changes of ${typeName} records in your account (${own.map((topic) => topic.name).join(', ')}). Needs ${readScopes.join(', ')}.`,
        // Every read scope the records need (a nested resource's: each parent's); the stream checks them all.
        authScopes: { scope: readScopes[0] },
        args: {
          filter: t.arg({ type: Filter, description: 'Which records; omitted: all.' }),
          afterSeq: t.arg({ type: 'SafeInt', description: afterSeqText }),
        },
        subscribe: (_root, args, ctx: GraphQLContext) => {
          const given = (args.filter ?? {}) as Record<string, unknown>;
          const filter: RecordEventFilter = {
            ids: given.ids as string[] | undefined,
            statuses: given.statuses as string[] | undefined,
            from: given.from ? new Date(given.from as string) : undefined,
            to: given.to ? new Date(given.to as string) : undefined,
            members: members ? (given[camelCase(members.name)] as string[] | undefined) : undefined,
          };
          return ctx.domain.eventStreams.ofResource(requestContext(ctx), def, filter, args.afterSeq);
        },
        resolve: (item: StreamItem, _args, ctx) => unwrap(item, ctx),
      }),
    );
  }
}
