// Parsing of date and timestamp values given by clients; an unparseable value is reported by the caller
// naming its field.

const isoDate = /^(\d{4})-(\d{2})-(\d{2})$/;
const isoDateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/** A calendar date YYYY-MM-DD that exists. */
export function parseCalendarDate(value: string): string | null {
  const m = isoDate.exec(value);
  if (!m) return null;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  if (d.getUTCFullYear() !== Number(m[1]) || d.getUTCMonth() !== Number(m[2]) - 1 || d.getUTCDate() !== Number(m[3])) return null;
  return value;
}

/** An ISO 8601 timestamp with an explicit offset, or a calendar date (taken as midnight UTC). */
export function parseTimestamp(value: string): Date | null {
  if (parseCalendarDate(value)) return new Date(`${value}T00:00:00Z`);
  if (!isoDateTime.test(value)) return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** The calendar date (YYYY-MM-DD) of `at` in the IANA time zone `timeZone` (en-CA formats dates as YYYY-MM-DD). */
export function calendarDateIn(at: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
}

/** The calendar date `days` after `date` (both YYYY-MM-DD). */
export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}
