import pg from 'pg';

// How the raw runner on PostgreSQL (src/db/client.ts) parses the values pg reads, to match what Prisma gives.

function digit(text: string, at: number): number {
  return text.charCodeAt(at) - 48;
}
function twoDigits(text: string, at: number): number {
  return (text.charCodeAt(at) - 48) * 10 + text.charCodeAt(at + 1) - 48;
}
/** Where 'YYYY-MM-DD HH:MM:SS' has its digits. */
const DIGITS_AT = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18];

/**
 * timestamptz as a Date, as pg's own parser (postgres-date) makes it, with a fast path for what a UTC session
 * prints, 'YYYY-MM-DD HH:MM:SS[.f...]+00' (year 1000 or later): read digit by digit instead of through regular
 * expressions, which a read of a thousand jobs with their customers, sites and contacts does six thousand
 * times. Sub-millisecond digits are dropped, as postgres-date drops them. Anything else goes to pg's parser.
 */
const pgTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (value: string) => Date;
function parseTimestamptz(text: string): Date {
  const n = text.length;
  if (n < 22 || n > 29 || text.charCodeAt(10) !== 32 || text.charCodeAt(0) === 48 || !text.endsWith('+00')) return pgTimestamptz(text);
  for (const at of DIGITS_AT) if (digit(text, at) >>> 0 > 9) return pgTimestamptz(text);
  let ms = 0;
  if (n > 22) {
    if (text.charCodeAt(19) !== 46 /* . */) return pgTimestamptz(text);
    for (let at = 20; at < n - 3; at++) {
      if (digit(text, at) >>> 0 > 9) return pgTimestamptz(text);
      if (at < 23) ms = ms * 10 + digit(text, at);
    }
    for (let at = n - 3; at < 23; at++) ms *= 10;
  }
  const year = twoDigits(text, 0) * 100 + twoDigits(text, 2);
  return new Date(Date.UTC(year, twoDigits(text, 5) - 1, twoDigits(text, 8), twoDigits(text, 11), twoDigits(text, 14), twoDigits(text, 17), ms));
}

/**
 * Values as Prisma gives them: int8 as BigInt, calendar dates as 'YYYY-MM-DD' strings (pg's default would make a
 * local-time Date), numeric as exact decimal strings, timestamptz as Date, jsonb parsed. The `types` of a pg query.
 */
export const exactTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === pg.types.builtins.INT8) return (value: string) => BigInt(value);
    if (oid === pg.types.builtins.DATE) return (value: string) => value;
    if (oid === pg.types.builtins.TIMESTAMPTZ && format !== 'binary') return parseTimestamptz;
    return pg.types.getTypeParser(oid, format);
  }) as typeof pg.types.getTypeParser,
};
