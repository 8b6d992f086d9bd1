import { z } from 'zod';
import type { ErrorCode } from '../kernel/errors.ts';
import type { ResourceDefinition } from '../kernel/resource.ts';
import type { Scope } from '../kernel/scopes.ts';
import { resources, webhookSecretShape, webhookTopicShape, systemOptionShape } from '../domain.ts';
import { wireShape, type WireShape } from '../kernel/wire-shape.ts';
import { actionOperations } from './action-operations.ts';
import { listEnvelope, listExample, unpaginatedListEnvelope, unpaginatedListExample } from './openapi/envelopes.ts';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../kernel/listing.ts';
import { CURSOR_FORM } from '../kernel/cursor.ts';
import { topics } from '../events/topics.ts';
import { CURRENT_VERSION } from '../kernel/versioning.ts';
import { shapeExample } from './openapi/examples.ts';
import { wireShapeSchema } from './wire-shape-schema.ts';

// The routes beyond the five standard endpoints of each resource: every declared action (action-operations.ts)
// and the system options catalog. openapi/extra-operations.ts turns each entry into an operation (security,
// headers, error responses) the same way as the standard ones; the codes every authenticated route gives
// (authentication, version, scope, body parsing, 404 of a path id) are added by openapi/error-codes.ts from the
// shape of the entry.

import type { StandardOperation } from '../kernel/resource.ts';

export type StandardKind = StandardOperation;

/** The registered schemas an extra operation can refer to. */
export interface SchemaRefs {
  /** The record schema of a standard resource, by name ("lead"). */
  record(resource: string): z.ZodType;
  /** The declaration of a standard resource, by name. */
  definition(resource: string): ResourceDefinition;
  /** A component declared in `extraComponents`. */
  component(name: string): z.ZodType;
}

export interface ExtraOperation {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** Path under /api/v2 in OpenAPI syntax; {id} is the record id of `resource`. */
  path: string;
  operationId: string;
  /** The resource (by name) whose tag lists the operation and whose record {id} names. */
  resource: string;
  summary: string;
  description: string;
  /** Every scope the operation needs (all of them); none: any valid key. */
  scopes: Scope[];
  /** Query parameters (strict: any other parameter is refused with the codes in `errors`). */
  query?: () => z.ZodObject;
  /** Path parameters other than {id}, with their descriptions. */
  params?: Record<string, string>;
  /** The JSON body: the record travels under `key` (none: the body carries no record, e.g. an empty object). */
  body?: { key?: string; required: boolean; schema: (refs: SchemaRefs) => z.ZodType; description?: string };
  ok: { status: 200 | 201 | 204; description: string; schema?: (refs: SchemaRefs) => z.ZodType; headers?: ('Location' | 'ETag')[] };
  /** Codes of the operation's own rules (the common ones are derived from the entry's shape). */
  errors: ErrorCode[];
  /** Standard operations whose rules this one also runs (convert creates a customer): their codes apply too. */
  includes?: { kind: StandardKind; resource: string }[];
  /** A financial create: the Idempotency-Key header is required (its codes and Idempotent-Replayed apply). */
  idempotent?: boolean;
}

/** A component the extra operations use: its schema and, for a request or success body, its example. */
export interface ExtraComponent {
  schema(refs: SchemaRefs): z.ZodType;
  example?(refs: SchemaRefs): unknown;
}

/**
 * What a create answer serves beyond the record, by resource name: the fields its afterCommit hook adds (the
 * declaration does not say them). The 201 of such a create is `<Class>CreatedResponse`: the record and these.
 */
export const createAnswers: Readonly<Record<string, WireShape>> = {
  webhook_endpoint: wireShape({
    name: 'WebhookEndpointCreated',
    description: 'The endpoint with its signing secret, which only this answer shows (POST .../rotate_secret makes a new one).',
    fields: { secret: webhookSecretShape.fields.secret },
  }),
};

const actions = actionOperations(resources);

/**
 * The names the change feed's topic and resource filters accept (EventFeedService.checkNamedTopics): every topic of
 * the catalog (src/events/topics.ts), and the resources that have topics. Any other name is 400 filter.invalid.
 */
const topicNames = () => topics().map((topic) => topic.name) as [string, ...string[]];
const topicResources = () => [...new Set(topics().map((topic) => topic.recordName))] as [string, ...string[]];

/**
 * A comma-separated list of `names` (an `[in]` filter: no spaces, no empty entry), as a pattern. Names are
 * lower-case words, a topic two of them with a dot: topics are grouped by resource (`job\.(?:created|updated)`)
 * to keep the pattern short.
 */
const listOf = (names: readonly string[]) => {
  const groups = new Map<string, string[]>();
  for (const name of names) {
    const [first, rest] = name.split('.');
    groups.set(first, [...(groups.get(first) ?? []), ...(rest === undefined ? [] : [rest])]);
  }
  const one = `(?:${[...groups].map(([first, rests]) => (rests.length === 0 ? first : `${first}\\.(?:${rests.join('|')})`)).join('|')})`;
  return new RegExp(`^${one}(?:,${one})*$`);
};

/** Components the extra operations use, registered in this order under these names. */
export const extraComponents: Record<string, ExtraComponent> = {
  ...Object.fromEntries(actions.components),
  SystemOption: { schema: () => wireShapeSchema(systemOptionShape) },
  WebhookTopic: { schema: () => wireShapeSchema(webhookTopicShape) },
  WebhookTopicList: {
    schema: (refs) => unpaginatedListEnvelope(z.array(refs.component('WebhookTopic')).openapi({ description: 'By name.' }), 'the catalog is not paginated'),
    example: () => unpaginatedListExample(shapeExample(webhookTopicShape)),
  },
  FeedEvent: {
    schema: () =>
      z
        .object({
          seq: z.number().int().min(1).openapi({ description: "The event's position in the account's feed, in commit order: resume with `seq[gt]=<the last seq you read>`." }),
          id: z.string().openapi({ format: 'uuid', description: 'The event id (the webhook-id of its webhook deliveries).' }),
          type: z.string().openapi({ description: 'The topic, e.g. job.updated (GET /webhooks/available_topics).' }),
          timestamp: z.string().openapi({ format: 'date-time', description: 'When the change was made.' }),
          api_version: z.string().openapi({ description: 'The API version `data.object` is served in: the calling key\'s.' }),
          data: z
            .object({ object: z.object({}).passthrough().openapi({ description: "The record as REST serves it (the topic's resource; see this document's webhooks for each topic's schema): after the change, or before it for a deletion." }) })
            .passthrough()
            .openapi({ description: 'The record, and per topic: changed_fields (updated), previous_status and status (status_changed), converted_to (converted).' }),
        })
        .openapi({ description: 'An event as a webhook delivers it, with its seq.' }),
  },
  FeedEventList: {
    schema: (refs) => listEnvelope(refs.component('FeedEvent')),
    example: () => listExample({ seq: 4182, id: '0199a3c2-7d4e-7b1a-9c3f-2e5d6f7a8b9c', type: 'customer.created', timestamp: '2026-05-01T09:30:00.000Z', api_version: CURRENT_VERSION, data: { object: { id: '0199a3c2-1111-7b1a-9c3f-2e5d6f7a8b9c', organization: 'Acme Heating' } } }),
  },
  SystemOptionList: {
    schema: (refs) => unpaginatedListEnvelope(z.array(refs.component('SystemOption')).openapi({ description: 'Ordered by position, then name.' }), 'the catalog is not paginated'),
    example: () => unpaginatedListExample(shapeExample(systemOptionShape)),
  },
};

export const extraOperations: ExtraOperation[] = [
  ...actions.operations,
  {
    method: 'get',
    path: '/webhooks/available_topics',
    operationId: 'listAvailableWebhookTopics',
    resource: 'webhook_endpoint',
    summary: 'List the topics you can subscribe to',
    description:
      "The topics this key can subscribe to now, by name, each with a description and the class of the record it carries: the account's modules are on for them, their resource is served, and the key may read their records. Registered topics that are not available (a module off, a resource not served yet) are left out; subscribing to one is 422 topic.not_available. Not paginated. Counts in the webhook_ingest rate bucket.",
    scopes: ['webhooks:read'],
    query: () => z.object({}).strict(),
    ok: { status: 200, description: 'The topics.', schema: (refs) => refs.component('WebhookTopicList') },
    errors: [],
  },
  {
    method: 'get',
    path: '/events',
    operationId: 'listEvents',
    resource: 'webhook_endpoint',
    summary: 'List events (the change feed)',
    description:
      "The account's events in commit order (seq), deletions included, each as a webhook delivers it plus its seq: the same feed as webhooks and GraphQL subscriptions, to read at your pace. Only topics whose records the key may read are listed (any valid key; filtering on a topic it may not read: 403 auth.scope_missing). Keyset-paginated like every list; to follow the feed over days, keep the last seq you read and ask for `seq[gt]=<it>` (cursors expire after 24 hours). Events are kept 30 days by default (EVENT_RETENTION_DAYS).",
    scopes: [],
    query: () =>
      z
        .object({
          cursor: z
            .string()
            .min(1)
            .regex(CURSOR_FORM)
            .optional()
            .openapi({ param: { description: 'The next_cursor of the previous page; omit on the first page (empty or not a cursor of this feed: 400 cursor.invalid).' } }),
          limit: z.number().int().min(1).max(MAX_LIMIT).default(DEFAULT_LIMIT).optional().openapi({ param: { description: `Page size, 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT}).` } }),
          sort: z.enum(['seq', '-seq']).default('seq').optional().openapi({ param: { description: 'seq (oldest first, the default) or -seq.' } }),
          topic: z
            .enum(topicNames())
            .optional()
            .openapi({ param: { description: 'Only this topic: one of the catalog (GET /webhooks/available_topics lists those this key can subscribe to); any other value: 400 filter.invalid.' } }),
          'topic[in]': z
            .string()
            .regex(listOf(topicNames()))
            .optional()
            .openapi({ param: { description: 'Only these comma-separated topics (1 to 100, each one of the topic enum, no spaces); any other name: 400 filter.invalid.' } }),
          resource: z
            .enum(topicResources())
            .optional()
            .openapi({ param: { description: "Only topics of this resource: a topic's first part (job for job.created, job.updated ...); any other value: 400 filter.invalid." } }),
          'resource[in]': z
            .string()
            .regex(listOf(topicResources()))
            .optional()
            .openapi({ param: { description: 'Only these comma-separated resources (1 to 100, each one of the resource enum, no spaces); any other name: 400 filter.invalid.' } }),
          record_id: z.string().optional().openapi({ format: 'uuid', param: { description: 'Only events of one record: must be the id of a Customer, Job or any other record with events.' } }),
          'record_id[in]': z.string().optional().openapi({ param: { description: 'Only events of these comma-separated records: each must be the id of a Customer, Job or any other record with events.' } }),
          ...Object.fromEntries(
            (['gt', 'gte', 'lt', 'lte'] as const).flatMap((op) => [
              [`seq[${op}]`, z.number().int().optional().openapi({ param: { description: `seq ${op} the value: \`seq[gt]=<last seq read>\` resumes the feed.` } })],
              [`created_at[${op}]`, z.string().optional().openapi({ format: 'date-time', param: { description: `Event time ${op} the value (ISO 8601).` } })],
            ]),
          ),
        })
        .strict(),
    ok: { status: 200, description: 'A page of events.', schema: (refs) => refs.component('FeedEventList') },
    errors: ['filter.invalid', 'sort.invalid', 'pagination.limit_too_large', 'cursor.invalid', 'cursor.invalid_filters', 'cursor.expired', 'auth.scope_missing'],
  },
  {
    method: 'get',
    path: '/system_options',
    operationId: 'listSystemOptions',
    resource: 'system',
    summary: 'List system options',
    description:
      'The system options catalog, shared by every account and read-only (the values of system_option_id on systems and sites), ordered by position, then name. Not paginated: has_more is always false, next_cursor always null. Needs a valid key, no scope. Takes system_type only; any other parameter, or system_type twice: 400 filter.invalid.',
    scopes: [],
    query: () =>
      z
        .object({
          system_type: z
            .string()
            .optional()
            .openapi({ param: { description: 'Only the options of this system_type (exact, case-sensitive match); omitted: every option.' } }),
        })
        .strict(),
    ok: { status: 200, description: 'The system options.', schema: (refs) => refs.component('SystemOptionList') },
    errors: ['filter.invalid'],
  },
];
