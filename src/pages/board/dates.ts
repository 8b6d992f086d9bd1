// Days and times as the board shows them: the browser's local day ('YYYY-MM-DD') and local hh:mm.

export function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** The local day of an instant, 'YYYY-MM-DD'. */
export function dayOf(date: Date): string {
  return date.getFullYear() + '-' + pad(date.getMonth() + 1) + '-' + pad(date.getDate());
}

/** The local midnight starting a day 'YYYY-MM-DD', or null when the text is not a day of the calendar. */
export function parseDay(text: string | null): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text || '');
  if (!m) return null;
  const date = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return dayOf(date) === text ? date : null;
}

/** A day's instants: [local midnight, next local midnight). */
export function windowOf(text: string): { from: Date; to: Date } {
  const start = parseDay(text);
  if (!start) throw new Error('Not a day: ' + text);
  const end = new Date(start.getFullYear(), start.getMonth(), start.getDate() + 1);
  return { from: start, to: end };
}

/** hh:mm on a day (the local midnight `day`): the instant a move starts the job at. */
export function at(day: Date, hours: number, minutes: number): Date {
  return new Date(day.getFullYear(), day.getMonth(), day.getDate(), hours, minutes);
}

export function hhmm(date: Date): string {
  return pad(date.getHours()) + ':' + pad(date.getMinutes());
}
