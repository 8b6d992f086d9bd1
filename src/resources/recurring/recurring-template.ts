import { addError } from '../../kernel/body.ts';
import { addDays, calendarDateIn } from '../../kernel/dates.ts';
import type { FieldSpec } from '../../kernel/fields.ts';
import { toWire } from '../../kernel/fields.ts';
import type { ReadOnlyField, WriteHookArgs } from '../../kernel/resource.ts';
import { vocabulary } from '../../kernel/vocabulary.ts';
import { canonicalRule, nextOccurrences, ruleProblem, type Schedule } from './schedule.ts';

// What recurring jobs and recurring invoices share: the schedule fields, the template's status (a fixed
// vocabulary the scheduler and the pause/resume actions move, not a tenant status) and the rules of a schedule
// write. The generator (generator.ts) turns each occurrence into a record.

export const recurringStatuses = vocabulary('RecurringStatus', ['active', 'paused', 'ended'], {
  description: 'Where a recurring template stands: creating its occurrences, paused, or past its last occurrence.',
  describe: (value) =>
    value === 'active'
      ? 'Occurrences inside the horizon are created.'
      : value === 'paused'
        ? 'Nothing is created until it is resumed; occurrences that fall in the pause are not created later.'
        : 'The series has no further occurrence (its end date passed or its count was reached).',
});

/** The schedule fields of a template; `startTime` for jobs (an invoice has a date only). */
export function scheduleFields(horizonDefault: number, startTime: boolean): Record<string, FieldSpec> {
  return {
    rule: {
      kind: 'string',
      create: 'required',
      update: 'optional',
      nullable: false,
      max: 500,
      example: 'FREQ=MONTHLY;BYMONTHDAY=1',
      description: 'The RFC 5545 recurrence rule (an RRULE value), e.g. FREQ=MONTHLY;BYMONTHDAY=1 or FREQ=WEEKLY;BYDAY=MO,TH;INTERVAL=2; served in canonical form.',
      writeRule:
        'FREQ DAILY, WEEKLY, MONTHLY or YEARLY, with INTERVAL, BYDAY, BYMONTHDAY, BYMONTH, BYYEARDAY, BYWEEKNO, BYSETPOS and WKST as RFC 5545 defines them. DTSTART, UNTIL, COUNT, TZID, BYHOUR, BYMINUTE and BYSECOND are refused: {start_date}, {end_date}, {count} and the account time zone say them. The series must have at least one occurrence.',
    },
    start_date: { kind: 'date', create: 'required', update: 'optional', nullable: false, description: 'The first date of the series (its DTSTART, a calendar date).' },
    ...(startTime
      ? {
          start_time: {
            kind: 'string',
            create: 'optional',
            update: 'optional',
            max: 5,
            description: "The local start time of each visit (HH:MM, 24-hour) in the account's time zone; it stays the same wall-clock time across daylight saving changes. Null: the jobs are not scheduled (their {due_date} is the occurrence).",
            writeRule: 'HH:MM from 00:00 to 23:59. A time a daylight saving change skips is read as the time after the change (02:30 on a night that goes from 02:00 to 03:00 is 03:30).',
          },
          duration_minutes: {
            kind: 'integer',
            create: 'optional',
            update: 'optional',
            range: [1, 1440],
            description: 'How long each visit is scheduled for, in minutes (its scheduled end is the start plus this).',
            writeRule: 'Default: 60 when {start_time} is set.',
          },
        }
      : {}),
    end_date: { kind: 'date', create: 'optional', update: 'optional', description: 'The last date an occurrence may fall on (inclusive); null with {count} null: the series never ends.', writeRule: 'Not before {start_date}; not with {count}.' },
    count: { kind: 'integer', create: 'optional', update: 'optional', range: [1, 1000], description: 'How many occurrences the series has from {start_date}, skipped ones included (RFC 5545 COUNT); null: no count.', writeRule: 'Not with {end_date}.' },
    horizon_days: {
      kind: 'integer',
      create: 'optional',
      update: 'optional',
      nullable: false,
      alwaysSet: true,
      range: [0, 366],
      description: `How many days ahead occurrences are created: each one is created once today (in the account's time zone) is at most this many days before it.`,
      writeRule: `Default ${horizonDefault}.`,
    },
  };
}

/** What every template serves and no client writes. */
export const templateReadOnly = {
  status: { kind: 'string', nullable: false, enum: recurringStatuses, description: 'active, paused or ended: changed by the pause and resume actions and by the scheduler (ended).' },
  amount: { kind: 'decimal', nullable: false, description: 'Sum of the line totals of the template: what each occurrence starts with.' },
} satisfies Record<string, ReadOnlyField>;

/** The schedule columns as stored (dates as Date) and as sent (YYYY-MM-DD). */
export type ScheduleColumns = {
  rule: string;
  start_date: Date | string;
  end_date: Date | string | null;
  count: number | null;
  start_time?: string | null;
  duration_minutes?: number | null;
  horizon_days: number;
  status: string;
};

const scheduleKeys = ['rule', 'start_date', 'end_date', 'count', 'start_time', 'horizon_days'] as const;

/** The schedule of a template row. */
export function scheduleOf(row: Pick<ScheduleColumns, 'rule' | 'start_date' | 'end_date' | 'count'>): Schedule {
  return {
    rule: row.rule,
    start_date: toWire('date', row.start_date) as string,
    end_date: row.end_date === null ? null : (toWire('date', row.end_date) as string),
    count: row.count,
  };
}

/**
 * The rules of a template's schedule, on every write: the rule readable and allowed (stored canonical), the start
 * time a wall-clock time, the end either a date or a count, and at least one occurrence. A write that changes the
 * schedule makes the generator read the horizon again from today (generated_through cleared: occurrences already
 * created stay as they are) and brings an ended template back to active when its series goes on.
 */
export function checkSchedule(args: WriteHookArgs<Record<string, unknown>, ScheduleColumns>, horizonDefault: number): void {
  const { values, existing, errors, mode, ctx, now } = args;
  const current = <K extends keyof ScheduleColumns>(key: K) => (key in values ? values[key] : existing?.[key]) as ScheduleColumns[K] | undefined;
  if (typeof values.rule === 'string') {
    const problem = ruleProblem(values.rule);
    if (problem) addError(errors, 'rule', problem);
    else values.rule = canonicalRule(values.rule);
  }
  if (typeof values.start_time === 'string' && !/^([01]\d|2[0-3]):[0-5]\d$/.test(values.start_time)) addError(errors, 'start_time', 'must be a time of day as HH:MM (00:00 to 23:59)');
  if (mode === 'create') {
    values.horizon_days ??= horizonDefault;
    if (values.start_time && values.duration_minutes === undefined) values.duration_minutes = 60;
  }
  if (values.duration_minutes !== undefined && values.duration_minutes !== null && !current('start_time')) addError(errors, 'duration_minutes', 'needs {start_time}');
  else if ('start_time' in values && values.start_time === null) values.duration_minutes = null;
  const endDate = current('end_date');
  const count = current('count');
  if (endDate && count && ('end_date' in values || 'count' in values)) addError(errors, 'end_date', 'cannot be given with {count}: a series ends by a date or by a count');
  const startDate = current('start_date');
  if (endDate && startDate && toWire('date', endDate)! < toWire('date', startDate)!) addError(errors, 'end_date', 'must not be before {start_date}');
  if (['rule', 'start_date', 'end_date', 'count'].some((key) => errors[key])) return;
  const schedule = scheduleOf({ rule: current('rule')!, start_date: startDate!, end_date: endDate ?? null, count: count ?? null });
  if (nextOccurrences(schedule, schedule.start_date, 1).length === 0) addError(errors, 'rule', 'gives no occurrence from {start_date} (to its end)');
  if (mode === 'update' && scheduleKeys.some((key) => key in values)) {
    values.generated_through = null;
    if (existing?.status === 'ended' && nextOccurrences(schedule, calendarDateIn(now, ctx.principal.account.timeZone), 1).length > 0) values.status = 'active';
  }
}

/** The first date the generator has not handled, given what it handled (generated_through) and today. */
export function firstUnhandled(generatedThrough: Date | null, startDate: string, today: string): string {
  if (generatedThrough) return addDays(toWire('date', generatedThrough) as string, 1);
  return startDate > today ? startDate : today;
}
