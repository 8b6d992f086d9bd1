import type { Logger } from 'pino';
import type { PrismaClient } from '../../generated/prisma/client.ts';
import { queryInput, readActionInput, type ActionInput, type ActionRecords } from '../../kernel/action.ts';
import { addError, throwIfErrors } from '../../kernel/body.ts';
import type { Clock } from '../../kernel/clock.ts';
import { runAsTenant, type RequestContext } from '../../kernel/context.ts';
import { calendarDateIn } from '../../kernel/dates.ts';
import { AppError, notFound, type FieldErrors } from '../../kernel/errors.ts';
import { toWire } from '../../kernel/fields.ts';
import { isUuid } from '../../kernel/ids.ts';
import { errorText } from '../../kernel/logger.ts';
import type { ResourceLookup } from '../../kernel/resource.ts';
import type { Single } from '../../kernel/resource-service.ts';
import { inTransaction, type TenantClient, type TenantTx } from '../../kernel/tenancy.ts';
import { tenantQuery } from '../../kernel/tenant-sql.ts';
import type { WireOf } from '../../kernel/wire-shape.ts';
import { claimSkip, dueTemplates, generateTemplate, type GenerationResult, type TemplateName } from './generator.ts';
import type { occurrenceShape } from './occurrence.shape.ts';
import { skipFields } from './recurring.actions.ts';
import { scheduleOf } from './recurring-template.ts';
import { localInstant, nextOccurrences, isOccurrence } from './schedule.ts';

// The actions of recurring templates (pause, resume, skip, the occurrences preview) and the scheduler's sweep
// over every account's templates (the queue's recurring-generate job, and each process at start).

type WireOccurrence = WireOf<typeof occurrenceShape>;

const tables: Record<TemplateName, { table: string; className: string }> = {
  recurring_job: { table: 'recurring_jobs', className: 'RecurringJob' },
  recurring_invoice: { table: 'recurring_invoices', className: 'RecurringInvoice' },
};

/** How many occurrences the preview answers unless its limit says (1 to 100: recurring.actions.ts). */
const PREVIEW_DEFAULT = 10;

interface TemplateRow {
  status: string;
  rule: string;
  start_date: Date;
  end_date: Date | null;
  count: number | null;
  start_time: string | null;
}

export class RecurringService {
  constructor(
    private readonly db: TenantClient,
    private readonly prisma: PrismaClient,
    private readonly clock: Clock,
    private readonly resources: ResourceLookup,
    private readonly logger?: Logger,
  ) {}

  private generate(name: TemplateName, accountId: string, id: string, stopped?: () => boolean): Promise<GenerationResult> {
    return generateTemplate({ db: this.db, resources: this.resources, now: () => this.clock.now(), stopped }, name, accountId, id);
  }

  /** The template's row, locked (FOR UPDATE) inside a transaction; 404 when it is not live. */
  private async template(db: TenantTx | TenantClient, name: TemplateName, id: string, lock: boolean): Promise<TemplateRow> {
    const { table, className } = tables[name];
    const [row] = isUuid(id)
      ? await tenantQuery<TemplateRow>(
          db,
          `SELECT status, rule, start_date, end_date, count, ${name === 'recurring_job' ? 'start_time' : 'NULL AS start_time'}
           FROM ${table} WHERE account_id = $1::uuid AND id = $2::uuid AND deleted_at IS NULL${lock ? ' FOR UPDATE' : ''}`,
          id,
        )
      : [];
    if (!row) throw notFound(className);
    return row;
  }

  /** Moves the template to `status` (a write with its updated event); unchanged when it is there already. */
  private setStatus(ctx: RequestContext, name: TemplateName, id: string, status: 'active' | 'paused'): Promise<Single> {
    return inTransaction(this.db, async (tx) => {
      const row = await this.template(tx, name, id, true);
      if (row.status === 'ended') throw new AppError('recurring.ended', `The series has ended: it has no occurrence left to ${status === 'active' ? 'resume' : 'pause'}; change its end to go on.`);
      if (row.status === status) return this.resources(name).getWithin(tx, id);
      // Resuming reads the horizon again from today: what fell in the pause is not created late.
      return this.resources(name).touchWithin(tx, ctx, id, status === 'active' ? { status, generated_through: null } : { status });
    });
  }

  pause(ctx: RequestContext, name: TemplateName, id: string): Promise<ActionRecords> {
    return runAsTenant(ctx.principal.accountId, async () => ({ [name]: await this.setStatus(ctx, name, id, 'paused') }));
  }

  resume(ctx: RequestContext, name: TemplateName, id: string): Promise<ActionRecords> {
    return runAsTenant(ctx.principal.accountId, async () => {
      await this.setStatus(ctx, name, id, 'active');
      await this.generate(name, ctx.principal.accountId, id);
      return { [name]: await this.resources(name).get(ctx, id) };
    });
  }

  skip(ctx: RequestContext, name: TemplateName, id: string, input: ActionInput): Promise<WireOccurrence> {
    return runAsTenant(ctx.principal.accountId, () =>
      inTransaction(this.db, async (tx) => {
        const row = await this.template(tx, name, id, true);
        const date = skipDate(readActionInput(input, 'skip'));
        const schedule = scheduleOf(row);
        const today = calendarDateIn(this.clock.now(), ctx.principal.account.timeZone);
        const errors: FieldErrors = {};
        if (date < today) addError(errors, 'date', `has passed (today is ${today} in the account's time zone)`);
        else if (!isOccurrence(schedule, date)) addError(errors, 'date', 'is not an occurrence of the schedule');
        throwIfErrors(errors);
        if (!(await claimSkip(tx, id, date))) {
          const [handled] = await occurrencesOf(tx, id, [date]);
          if (handled?.state === 'created') {
            throw new AppError('recurring.occurrence_created', `The occurrence of ${date} was created already (${handled.record_id}): delete that record instead of skipping the occurrence.`);
          }
        }
        return this.wire(row, ctx, date, { state: 'skipped', record_id: null, reason: null });
      }),
    );
  }

  occurrences(ctx: RequestContext, name: TemplateName, id: string, input: ActionInput): Promise<WireOccurrence[]> {
    return runAsTenant(ctx.principal.accountId, async () => {
      const row = await this.template(this.db, name, id, false);
      const query = input();
      const limit = typeof query.limit === 'number' ? query.limit : PREVIEW_DEFAULT;
      const today = calendarDateIn(this.clock.now(), ctx.principal.account.timeZone);
      const from = typeof query.from === 'string' ? query.from : today;
      // An ended series has nothing ahead; what it had is still shown from an earlier date.
      if (row.status === 'ended' && from >= today) return [];
      const dates = nextOccurrences(scheduleOf(row), from, limit);
      const handled = new Map((await occurrencesOf(this.db, id, dates)).map((o) => [o.date, o]));
      return dates.map((date) => this.wire(row, ctx, date, handled.get(date) ?? { state: 'upcoming', record_id: null, reason: null }));
    });
  }

  private wire(row: TemplateRow, ctx: RequestContext, date: string, about: Pick<WireOccurrence, 'state' | 'record_id' | 'reason'>): WireOccurrence {
    const start = row.start_time ? localInstant(date, row.start_time, ctx.principal.account.timeZone).toISOString() : null;
    return { date, state: about.state, record_id: about.record_id, scheduled_start: start, reason: about.reason };
  }

  /**
   * One pass of the scheduler over every account's templates with occurrences due: each template on its own (a
   * failing one is logged and the others go on). `stopped` is asked between occurrences (a stopping process ends
   * its sweep there). Answers the totals.
   */
  async sweep(stopped?: () => boolean): Promise<GenerationResult> {
    const total: GenerationResult = { created: 0, missed: 0, failed: 0 };
    // In an order of its own: processes sweeping at once (each at its start) mostly take different templates
    // instead of waiting on each other's occurrences one by one (the ledger keeps them exact either way).
    for (const template of shuffled(await dueTemplates(this.prisma, this.clock.now()))) {
      if (stopped?.()) break;
      try {
        const result = await this.generate(template.name, template.account_id, template.id, stopped);
        total.created += result.created;
        total.missed += result.missed;
        total.failed += result.failed;
      } catch (error) {
        this.logger?.warn({ err: errorText(error), template_id: template.id }, 'recurring template generation failed');
      }
    }
    return total;
  }
}

/** The entries in a random order (Fisher-Yates). */
function shuffled<T>(entries: T[]): T[] {
  for (let i = entries.length - 1; i > 0; i -= 1) {
    const j = Math.floor(Math.random() * (i + 1));
    [entries[i], entries[j]] = [entries[j]!, entries[i]!];
  }
  return entries;
}

/** The ledger rows of these dates of a template. */
async function occurrencesOf(db: TenantTx | TenantClient, templateId: string, dates: string[]): Promise<Pick<WireOccurrence, 'date' | 'state' | 'record_id' | 'reason'>[]> {
  if (dates.length === 0) return [];
  const rows = await tenantQuery<{ occurrence_date: Date; state: WireOccurrence['state']; record_id: string | null; reason: string | null }>(
    db,
    `SELECT occurrence_date, state, record_id::text, reason FROM recurring_occurrences
     WHERE account_id = $1::uuid AND template_id = $2::uuid AND occurrence_date = ANY($3::date[])`,
    templateId,
    dates,
  );
  return rows.map((row) => ({ date: toWire('date', row.occurrence_date) as string, state: row.state, record_id: row.record_id, reason: row.reason }));
}

/** The skip action's input: its date, checked as the kernel checks declared fields (unknown, missing, malformed: 422). */
function skipDate(values: Record<string, unknown>): string {
  return queryInput(skipFields, values).date as string;
}

declare module '../../kernel/action.ts' {
  /** The actions' name for this service (src/domain.ts provides it). */
  interface DomainServices {
    recurring: RecurringService;
  }
}
