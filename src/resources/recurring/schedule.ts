import rrulePackage from 'rrule';

const { RRule, Frequency } = rrulePackage;

// The schedule of a recurring template: an RFC 5545 recurrence rule (the RRULE value, parsed by the rrule
// library) from a start date, ended by a date, a count, or never. The rule is expanded on floating calendar
// dates: each occurrence is a date, and its start instant is that date at the template's local start time in
// the account's time zone (localInstant), so a 09:00 visit stays at 09:00 local across a DST change and the
// process's own time zone never matters (rrule's TZID support depends on it: it is not used).

/** The series a template's schedule describes (dates as YYYY-MM-DD). */
export interface Schedule {
  rule: string;
  start_date: string;
  /** The last date an occurrence may fall on (inclusive), or null. */
  end_date: string | null;
  /** How many occurrences the series has from start_date (skipped ones count), or null. */
  count: number | null;
}

/** Parts the rule may not carry: the template's own fields say them (start_date, end_date, count, start_time). */
const refusedParts: Record<string, string> = {
  DTSTART: 'start_date',
  TZID: "the account's time zone",
  UNTIL: 'end_date',
  COUNT: 'count',
  BYHOUR: 'start_time',
  BYMINUTE: 'start_time',
  BYSECOND: 'start_time',
};

/** At most one occurrence per calendar date: the occurrence date is the key of what is created. */
const allowedFrequencies = new Set([Frequency.YEARLY, Frequency.MONTHLY, Frequency.WEEKLY, Frequency.DAILY]);

/** The numbered BYxxx parts and their RFC 5545 ranges: [part, rrule option, largest magnitude, may be negative]. */
const numberedParts: readonly [string, string, number, boolean][] = [
  ['BYMONTH', 'bymonth', 12, false],
  ['BYMONTHDAY', 'bymonthday', 31, true],
  ['BYYEARDAY', 'byyearday', 366, true],
  ['BYWEEKNO', 'byweekno', 53, true],
  ['BYSETPOS', 'bysetpos', 366, true],
];

/** A rule expanded too far is cut there: about 30 years of daily occurrences. */
const MAX_EXPANSION = 11_000;

/** Why the rule cannot be a template's schedule, as a field message; null when it can. */
export function ruleProblem(rule: string): string | null {
  const text = ruleText(rule);
  if (text === '' || /[\r\n]/.test(text)) return 'must be one RFC 5545 RRULE value, e.g. FREQ=MONTHLY;BYMONTHDAY=1';
  for (const part of text.split(';')) {
    const name = part.split('=')[0]!.trim().toUpperCase();
    const instead = refusedParts[name];
    if (instead) return `must not contain ${name} (give ${instead} instead)`;
  }
  let options;
  try {
    options = RRule.parseString(text);
  } catch (error) {
    return `is not a valid RFC 5545 recurrence rule (${error instanceof Error ? error.message : 'unreadable'})`;
  }
  const days = options.byweekday;
  if (Array.isArray(days) ? days.some((day) => day === undefined || day === null) : days === undefined && /BYDAY/.test(text)) return 'has a BYDAY value that is not a weekday (MO, TU, WE, TH, FR, SA, SU, optionally with an ordinal: 1MO, -1FR)';
  for (const [part, key, max, signed] of numberedParts) {
    const raw = (options as Record<string, unknown>)[key];
    const values = raw === undefined || raw === null ? [] : Array.isArray(raw) ? raw : [raw];
    if (values.some((value) => !Number.isInteger(value) || value === 0 || Math.abs(value as number) > max || (!signed && (value as number) < 0))) {
      return `has a ${part} value out of range (${signed ? `1 to ${max} or -${max} to -1` : `1 to ${max}`})`;
    }
  }
  if (options.freq === undefined) return 'must name FREQ (DAILY, WEEKLY, MONTHLY or YEARLY)';
  if (!allowedFrequencies.has(options.freq)) return 'must have FREQ DAILY, WEEKLY, MONTHLY or YEARLY (at most one occurrence per day)';
  if (options.interval !== undefined && (!Number.isInteger(options.interval) || options.interval < 1 || options.interval > 1000)) return 'must have an INTERVAL from 1 to 1000';
  return null;
}

/** The RRULE value as rrule reads it: upper case, without the RRULE: prefix. */
function ruleText(rule: string): string {
  return rule.trim().replace(/^RRULE:/i, '').toUpperCase();
}

/** The rule in its canonical form (what is stored and served), once ruleProblem accepted it. */
export function canonicalRule(rule: string): string {
  return RRule.optionsToString(RRule.parseString(ruleText(rule))).replace(/^RRULE:/, '');
}

function utcDate(date: string): Date {
  return new Date(`${date}T00:00:00Z`);
}

function rruleOf(schedule: Schedule) {
  const options = RRule.parseString(ruleText(schedule.rule));
  return new RRule({
    ...options,
    dtstart: utcDate(schedule.start_date),
    until: schedule.end_date ? new Date(`${schedule.end_date}T23:59:59Z`) : null,
    count: schedule.count,
  });
}

/** The occurrence dates from `from` to `to` (inclusive), ascending. */
export function occurrenceDates(schedule: Schedule, from: string, to: string): string[] {
  if (to < from) return [];
  const dates: string[] = [];
  rruleOf(schedule).between(utcDate(from), new Date(`${to}T23:59:59Z`), true, (date) => {
    dates.push(date.toISOString().slice(0, 10));
    return dates.length < MAX_EXPANSION;
  });
  return dates;
}

/** The first `limit` occurrence dates on or after `from`. */
export function nextOccurrences(schedule: Schedule, from: string, limit: number): string[] {
  const dates: string[] = [];
  if (limit <= 0) return dates;
  rruleOf(schedule).between(utcDate(from), new Date('9999-12-31T23:59:59Z'), true, (date, index) => {
    dates.push(date.toISOString().slice(0, 10));
    return dates.length < limit && index < MAX_EXPANSION;
  });
  return dates;
}

/** Whether the series has an occurrence on `date`. */
export function isOccurrence(schedule: Schedule, date: string): boolean {
  return occurrenceDates(schedule, date, date).length === 1;
}

/** Whether the series has no occurrence on or after `date` (it has ended by then). */
export function endedBy(schedule: Schedule, date: string): boolean {
  if (schedule.end_date === null && schedule.count === null) return false;
  if (schedule.end_date !== null && schedule.end_date < date) return true;
  return nextOccurrences(schedule, date, 1).length === 0;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The wall-clock time of `instant` in the zone, as milliseconds of a UTC date with the same fields. */
function wallClock(instant: number, timeZone: string): number {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formatters.set(timeZone, format);
  }
  const parts: Record<string, number> = {};
  for (const part of format.formatToParts(new Date(instant))) if (part.type !== 'literal') parts[part.type] = Number(part.value);
  return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
}

/**
 * The instant of a local date and time (HH:MM) in an IANA zone. A time that occurs twice (the hour a fall-back
 * repeats) is its first instant; a time that does not occur (skipped by a spring-forward) is read with the offset
 * before the change, as RFC 5545 says (02:30 on the night clocks go from 02:00 to 03:00 is 03:30).
 */
export function localInstant(date: string, time: string, timeZone: string): Date {
  const [hours, minutes] = time.split(':').map(Number);
  const wall = utcDate(date).getTime() + (hours! * 60 + minutes!) * 60_000;
  // The offsets a day before and a day after bracket any change of that day (zones change at most once a day).
  const offsets = [...new Set([wall - 86_400_000, wall + 86_400_000].map((at) => wallClock(at, timeZone) - at))];
  const fits = offsets.map((offset) => wall - offset).filter((instant) => wallClock(instant, timeZone) === wall);
  if (fits.length > 0) return new Date(Math.min(...fits));
  return new Date(wall - offsets[0]!);
}
