import { requireScope } from '../kernel/auth.ts';
import type { RequestContext } from '../kernel/context.ts';
import { runAsTenant } from '../kernel/context.ts';
import type { CursorCodec } from '../kernel/cursor.ts';
import { subjectError } from '../kernel/errors.ts';
import { rangeOps, type ListRequest, type ListResult, type ListSpec } from '../kernel/listing.ts';
import { runList } from '../kernel/list-sql.ts';
import type { Scope } from '../kernel/scopes.ts';
import { grants } from '../kernel/scopes.ts';
import { printable } from '../kernel/storable.ts';
import type { RawRunner } from '../kernel/tenant-sql.ts';
import { envelopeOf, type EventEnvelope, type StoredEvent } from '../kernel/envelope.ts';
import { topicNamed, topics } from './topics.ts';
import { topicReadScopes } from '../kernel/topics.ts';

// GET /events: the change feed. The account's events in commit order (seq), with the list conventions (cursor,
// limit, filters), deletions included, each as the webhook envelope plus its seq. Only the topics whose records
// the key may read are listed; filtering on one it may not read is 403 auth.scope_missing, on an unknown one 400
// filter.invalid. A client that keeps the last seq it read resumes with seq[gt]=<seq>, however old its cursor.
// Events are kept EVENT_RETENTION_DAYS (30 by default).

/** One entry of the feed. */
export type FeedEvent = EventEnvelope & { seq: number };

const filters = {
  topic: { type: 'string', ops: ['eq', 'in'] },
  // The topic's first part: `job` for job.created, job.updated ...
  resource: { type: 'string', ops: ['eq', 'in'], column: `split_part(topic, '.', 1)` },
  record_id: { type: 'uuid', ops: ['eq', 'in'] },
  seq: { type: 'integer', ops: rangeOps },
  created_at: { type: 'datetime', ops: rangeOps },
} as const satisfies ListSpec['filters'];

/** Catalog names are lower-case words and dots: safe to write into the statement as literals. */
const SAFE_NAME = /^[a-z_]+(\.[a-z_]+)?$/;
/** Parent types (class names) are words: safe literals too. */
const SAFE_TYPE = /^[A-Za-z]+$/;


export class EventFeedService {
  constructor(
    private readonly raw: RawRunner,
    private readonly cursors: CursorCodec,
  ) {}

  list(ctx: RequestContext, request: ListRequest): Promise<ListResult<FeedEvent>> {
    this.checkNamedTopics(ctx, request);
    const canRead = (resource: string) => grants(ctx.principal.key.scopes, `${resource}:read` as Scope);
    const readable = topics()
      .filter((topic) => topic.scope !== null && canRead(topic.scope))
      .map((topic) => topic.name)
      .filter((name) => SAFE_NAME.test(name));
    // A nested resource's topics (note.*): the events whose record's parent type the key may read.
    const byParent = topics().flatMap((topic) => {
      if (!topic.readBy || !SAFE_NAME.test(topic.name) || !SAFE_NAME.test(topic.readBy.field)) return [];
      const types = Object.entries(topic.readBy.scopes).filter(([type, scope]) => SAFE_TYPE.test(type) && canRead(scope)).map(([type]) => `'${type}'`);
      return types.length > 0 ? [`(topic = '${topic.name}' AND payload->>'${topic.readBy.field}' IN (${types.join(', ')}))`] : [];
    });
    const visible = [...(readable.length > 0 ? [`topic IN (${readable.map((name) => `'${name}'`).join(', ')})`] : []), ...byParent];
    const spec: ListSpec = {
      resource: 'event',
      table: 'events',
      columns: ['id', 'seq', 'topic', 'payload', 'details', 'created_at'],
      live: visible.length > 0 ? `(${visible.join(' OR ')})` : 'false',
      filters,
      sorts: { seq: { type: 'integer' } },
      defaultSort: 'seq',
    };
    return runAsTenant(ctx.principal.accountId, async () => {
      const page = await runList<StoredEvent>(this.raw, spec, { request }, { cursors: this.cursors });
      return { ...page, data: page.data.map((row) => ({ seq: Number(row.seq), ...envelopeOf(row, ctx.apiVersion) })) };
    });
  }

  /** topic and resource filters name catalog entries: an unknown name is 400, one the key may not read 403. */
  private checkNamedTopics(ctx: RequestContext, request: ListRequest): void {
    for (const filter of request.filters ?? []) {
      const field = filter.field;
      if ((field !== 'topic' && field !== 'resource') || (filter.op !== undefined && filter.op !== 'in')) continue;
      const names = typeof filter.value === 'string' ? (filter.op === 'in' ? filter.value.split(',') : [filter.value]) : filter.value;
      for (const name of names) {
        const matching = field === 'topic' ? [topicNamed(name)].filter((topic) => topic !== undefined) : topics().filter((topic) => topic.recordName === name);
        if (matching.length === 0) {
          throw subjectError('filter.invalid', { kind: 'filter', field, op: filter.op }, (key) => `${key}: "${printable(name.slice(0, 100))}" is not a ${field === 'topic' ? 'topic' : 'resource with events'} (GET /webhooks/available_topics lists the topics)`);
        }
        for (const topic of matching) {
          if (topic.readBy) {
            // A nested resource's topic: the key must read some parent (the feed then lists those events it may read).
            const scopes = topicReadScopes(topic);
            if (!scopes.some((scope) => grants(ctx.principal.key.scopes, scope))) requireScope(ctx.principal, scopes[0]);
            continue;
          }
          if (topic.scope === null) continue;
          requireScope(ctx.principal, `${topic.scope}:read` as Scope);
        }
      }
    }
  }
}
