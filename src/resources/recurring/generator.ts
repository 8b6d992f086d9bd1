import type { PrismaClient } from '../../generated/prisma/client.ts';
import { runAsTenant, type RequestContext } from '../../kernel/context.ts';
import { addDays, calendarDateIn } from '../../kernel/dates.ts';
import { AppError } from '../../kernel/errors.ts';
import { toWire } from '../../kernel/fields.ts';
import { newId } from '../../kernel/ids.ts';
import { customFieldDefinitions } from '../../kernel/lookups.ts';
import { modelDelegate, type RecordRow } from '../../kernel/model-delegates.ts';
import type { CommitHookArgs, ResourceLookup } from '../../kernel/resource.ts';
import type { Single } from '../../kernel/resource-service.ts';
import { systemContext } from '../../kernel/system-context.ts';
import { inTransaction, type TenantClient, type TenantTx } from '../../kernel/tenancy.ts';
import { tenantQuery } from '../../kernel/tenant-sql.ts';
import { firstUnhandled, scheduleOf } from './recurring-template.ts';
import { endedBy, localInstant, occurrenceDates } from './schedule.ts';

// The generator: turns the occurrences of a recurring template that are due (inside its horizon) into records,
// each exactly once. Every occurrence is its own transaction: its row in the occurrence ledger
// (recurring_occurrences, unique per template and date) is inserted first, ON CONFLICT DO NOTHING, naming the
// record about to be made (its id is chosen first), then the record is created with the record's own rules
// (createWithin: number, lines, events). A second process generating the same occurrence waits on the unique key
// until the first commits and then finds the row taken; a process killed mid-occurrence leaves nothing (its transaction never committed) and the next run
// creates it. The ledger, not timing, decides.
//
// Which occurrences: from the first date the generator has not handled (the day after generated_through; after a
// create or a schedule change, resume: today or the start date) to today plus horizon_days, today in the account's
// time zone. An occurrence whose date has passed when the generator first reaches it (the server was down longer
// than the horizon) is recorded as missed, not created: a flood of late records would be worse than none
// (docs/decisions.md, Recurring jobs and invoices). An occurrence the record's rules refuse (its site was deleted
// since, an assignee deactivated) is recorded as failed, with the reason, and the series goes on.
//
// It runs after each template write (the write's afterCommit: the answer comes once the horizon is created), on
// every process at start, and as the queue's recurring-generate schedule every 5 minutes (src/events/queue.ts).

export type TemplateName = 'recurring_job' | 'recurring_invoice';

interface TemplateKind {
  table: 'recurring_jobs' | 'recurring_invoices';
  model: 'recurringJob' | 'recurringInvoice';
  /** The resource each occurrence becomes, and its column naming the template. */
  target: 'job' | 'invoice';
  column: 'recurring_job_id' | 'recurring_invoice_id';
  system: 'recurring_jobs' | 'recurring_invoices';
  lookupClass: 'Job' | 'Invoice';
  /** The template's fields the record takes as they are. */
  copied: readonly string[];
  /** The record's input of one occurrence beyond the copied fields. */
  occurrence(template: RecordRow, date: string, ctx: RequestContext, assignments: { user_id: bigint }[]): Record<string, unknown>;
}

const kinds: Record<TemplateName, TemplateKind> = {
  recurring_job: {
    table: 'recurring_jobs',
    model: 'recurringJob',
    target: 'job',
    column: 'recurring_job_id',
    system: 'recurring_jobs',
    lookupClass: 'Job',
    copied: ['customer_id', 'site_id', 'contact_id', 'system_id', 'project_id', 'title', 'scope_of_work', 'work_description', 'customer_notes', 'reference', 'job_type', 'priority'],
    occurrence(template, date, ctx, assignments) {
      const input: Record<string, unknown> = { due_date: date, assignments: assignments.map((a) => ({ user_id: Number(a.user_id) })) };
      const startTime = template.start_time as string | null;
      if (startTime) {
        const start = localInstant(date, startTime, ctx.principal.account.timeZone);
        input.scheduled_start = start.toISOString();
        input.scheduled_end = new Date(start.getTime() + Number(template.duration_minutes ?? 60) * 60_000).toISOString();
      }
      return input;
    },
  },
  recurring_invoice: {
    table: 'recurring_invoices',
    model: 'recurringInvoice',
    target: 'invoice',
    column: 'recurring_invoice_id',
    system: 'recurring_invoices',
    lookupClass: 'Invoice',
    copied: ['customer_id', 'site_id', 'contact_id', 'reference', 'customer_notes', 'tax_rate_id'],
    occurrence(template, date, ctx) {
      const terms = (template.payment_terms_days as number | null) ?? ctx.principal.account.paymentTermsDays;
      return { invoice_date: date, due_date: addDays(date, terms) };
    },
  },
};

/** Where the generator reads and writes. */
export interface GeneratorDeps {
  db: TenantClient;
  resources: ResourceLookup;
  now(): Date;
  /** Asked between occurrences: true stops the run there (the process is stopping; the next run goes on). */
  stopped?: () => boolean;
}

/** What one run of one template did, by state. */
export interface GenerationResult {
  created: number;
  missed: number;
  failed: number;
}

const nothing = (): GenerationResult => ({ created: 0, missed: 0, failed: 0 });

/** Generates the due occurrences of one template of the account. */
export async function generateTemplate(deps: GeneratorDeps, name: TemplateName, accountId: string, templateId: string): Promise<GenerationResult> {
  const kind = kinds[name];
  const ctx = await systemContext(deps.db, { accountId, system: kind.system, about: { [kind.column]: templateId } });
  if (!ctx) return nothing();
  return runAsTenant(accountId, async () => {
    const template = await modelDelegate(deps.db, kind.model).findFirst({ where: { id: templateId, deleted_at: null } });
    if (!template || template.status !== 'active') return nothing();
    const now = deps.now();
    const today = calendarDateIn(now, ctx.principal.account.timeZone);
    const schedule = scheduleOf(template as never);
    const through = addDays(today, template.horizon_days as number);
    const dates = occurrenceDates(schedule, firstUnhandled(template.generated_through as Date | null, schedule.start_date, today), through);
    const result = nothing();
    if (dates.length > 0) {
      const source = await templateParts(deps.db, kind, template);
      for (const date of dates) {
        if (deps.stopped?.()) return result;
        const state = await generateOccurrence(deps, kind, ctx, template, source, date, date < today);
        if (state) result[state] += 1;
      }
    }
    await inTransaction(deps.db, async (tx) => {
      // Only when the template was not changed meanwhile: a schedule change cleared generated_through on purpose.
      const [moved] = await tenantQuery<{ id: string }>(
        tx,
        `UPDATE ${kind.table} SET generated_through = $3::date
         WHERE account_id = $1::uuid AND id = $2::uuid AND lock_version = $4 AND (generated_through IS NULL OR generated_through < $3::date) RETURNING id`,
        templateId,
        through,
        template.lock_version,
      );
      if (moved && endedBy(schedule, addDays(through, 1))) await deps.resources(name).touchWithin(tx, ctx.origin!, templateId, { status: 'ended' });
    });
    return result;
  });
}

interface TemplateParts {
  lines: Record<string, unknown>[];
  assignments: { user_id: bigint }[];
  /** The template's custom field values a record takes (attachment values stay the template's own files). */
  customFields: Record<string, unknown>;
}

async function templateParts(db: TenantClient, kind: TemplateKind, template: RecordRow): Promise<TemplateParts> {
  const lines = await db.lineitem.findMany({ where: { [kind.column]: template.id }, orderBy: [{ position: 'asc' }, { created_at: 'asc' }] });
  const assignments = kind.target === 'job' ? await db.recurringJobAssignment.findMany({ where: { recurring_job_id: template.id }, orderBy: [{ position: 'asc' }, { created_at: 'asc' }] }) : [];
  const attachments = new Set((await customFieldDefinitions(db, kind.lookupClass)).filter((d) => d.field_type === 'attachment').map((d) => d.id));
  const customFields = Object.fromEntries(Object.entries((template.custom_fields as Record<string, unknown> | null) ?? {}).filter(([id]) => !attachments.has(id)));
  return { lines, assignments, customFields };
}

/** One occurrence in its own transaction; answers what became of it (null: another run had handled it). */
async function generateOccurrence(
  deps: GeneratorDeps,
  kind: TemplateKind,
  ctx: RequestContext,
  template: RecordRow,
  source: TemplateParts,
  date: string,
  passed: boolean,
): Promise<keyof GenerationResult | null> {
  try {
    return await inTransaction(deps.db, async (tx) => {
      if (passed) return (await claim(tx, template.id, date, 'missed')) ? 'missed' : null;
      // The record's id is chosen first, so the ledger row names it from its insert (one statement, not two).
      const recordId = newId();
      if (!(await claim(tx, template.id, date, 'created', null, recordId))) return null;
      const input: Record<string, unknown> = { ...kind.occurrence(template, date, ctx, source.assignments), labels: template.labels, custom_fields: source.customFields };
      for (const field of kind.copied) if (template[field] !== null && template[field] !== undefined) input[field] = toWire('string', template[field]);
      await deps.resources(kind.target).createWithin(tx, ctx, input, {
        values: { id: recordId, [kind.column]: template.id, occurrence_date: new Date(`${date}T00:00:00Z`) },
        children: { lineitems: source.lines },
      });
      return 'created';
    });
  } catch (error) {
    // The record's rules refused it (a coded refusal): recorded as failed, once; anything else (the database) stops the run.
    if (!(error instanceof AppError)) throw error;
    const reason = [error.detail ?? error.title, ...Object.entries((error.extra.errors as Record<string, string[]> | undefined) ?? {}).map(([field, messages]) => `${field} ${messages.join(', ')}`)].join('; ');
    const recorded = await inTransaction(deps.db, (tx) => claim(tx, template.id, date, 'failed', reason.slice(0, 1000)));
    return recorded ? 'failed' : null;
  }
}

/** Inserts the occurrence's ledger row; answers its id, or null when the occurrence was handled already. */
async function claim(tx: TenantTx, templateId: string, date: string, state: 'created' | 'missed' | 'failed' | 'skipped', reason: string | null = null, recordId: string | null = null): Promise<string | null> {
  const [row] = await tenantQuery<{ id: string }>(
    tx,
    `INSERT INTO recurring_occurrences (id, account_id, template_id, occurrence_date, state, reason, record_id)
     VALUES ($2::uuid, $1::uuid, $3::uuid, $4::date, $5, $6, $7::uuid)
     ON CONFLICT (account_id, template_id, occurrence_date) DO NOTHING RETURNING id`,
    newId(),
    templateId,
    date,
    state,
    reason,
    recordId,
  );
  return row?.id ?? null;
}

/** Records a skip of one occurrence (POST .../skip); answers false when the occurrence was handled already. */
export async function claimSkip(tx: TenantTx, templateId: string, date: string): Promise<boolean> {
  return (await claim(tx, templateId, date, 'skipped')) !== null;
}

/**
 * The templates of every account with occurrences due: active, and not handled as far as today (in the account's
 * time zone) plus their horizon. A sweep with nothing due costs these reads only.
 */
export async function dueTemplates(prisma: PrismaClient, now: Date): Promise<{ name: TemplateName; account_id: string; id: string }[]> {
  const select = { id: true, account_id: true, horizon_days: true, generated_through: true } as const;
  const where = { deleted_at: null, status: 'active' };
  // Every account's: this read is the scheduler's, outside any tenant (each template then runs as its account).
  const [jobs, invoices] = await Promise.all([prisma.recurringJob.findMany({ where, select, orderBy: { id: 'asc' } }), prisma.recurringInvoice.findMany({ where, select, orderBy: { id: 'asc' } })]);
  const accounts = [...new Set([...jobs, ...invoices].map((row) => row.account_id))];
  const zones = new Map((accounts.length === 0 ? [] : await prisma.account.findMany({ where: { id: { in: accounts } }, select: { id: true, time_zone: true } })).map((a) => [a.id, a.time_zone]));
  const due = (name: TemplateName, rows: { id: string; account_id: string; horizon_days: number; generated_through: Date | null }[]) =>
    rows
      .filter((row) => {
        const zone = zones.get(row.account_id);
        if (zone === undefined) return false;
        return row.generated_through === null || (toWire('date', row.generated_through) as string) < addDays(calendarDateIn(now, zone), row.horizon_days);
      })
      .map((row) => ({ name, account_id: row.account_id, id: row.id }));
  return [...due('recurring_job', jobs), ...due('recurring_invoice', invoices)];
}

/** The afterCommit hook of a template: its due occurrences are created before the write is answered. */
export function generateAfterWrite(name: TemplateName) {
  return async ({ ctx, db, resources, single }: CommitHookArgs): Promise<Single> => {
    const service = resources(name);
    const id = single.record.id as string;
    // The write committed: a failure here (the database) leaves the occurrences to the next sweep, not the answer.
    await generateTemplate({ db, resources, now: () => service.now() }, name, ctx.principal.accountId, id).catch(() => undefined);
    // The answer is the template as it is now (the generator may have ended it).
    return runAsTenant(ctx.principal.accountId, () => service.get(ctx, id)).catch(() => single);
  };
}
