import { afterEach, describe, expect, it } from 'vitest';
import { isOccurrence, localInstant, nextOccurrences, occurrenceDates, ruleProblem } from '../../src/resources/recurring/schedule.ts';

// The recurrence arithmetic of recurring templates (src/resources/recurring/schedule.ts) gives the same answers
// whatever the server process's own time zone: rules are expanded on floating dates and the local start time is
// placed in the account's zone, never the process's. Run here under three process zones (Node reads TZ anew
// when it changes).

const processZones = ['UTC', 'Asia/Tokyo', 'America/Los_Angeles'];
const original = process.env.TZ;
afterEach(() => {
  if (original === undefined) delete process.env.TZ;
  else process.env.TZ = original;
});

function answers() {
  return {
    monthly31: occurrenceDates({ rule: 'FREQ=MONTHLY;BYMONTHDAY=31', start_date: '2027-01-01', end_date: null, count: null }, '2027-01-01', '2027-12-31'),
    leapDay: nextOccurrences({ rule: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29', start_date: '2027-01-01', end_date: null, count: null }, '2027-01-01', 2),
    biweekly: nextOccurrences({ rule: 'FREQ=WEEKLY;BYDAY=MO,TH;INTERVAL=2', start_date: '2027-03-01', end_date: null, count: 5 }, '2027-03-01', 10),
    lastFriday: nextOccurrences({ rule: 'FREQ=MONTHLY;BYDAY=-1FR', start_date: '2027-01-01', end_date: '2027-03-31', count: null }, '2027-01-01', 10),
    newYorkSpring: ['2027-03-13', '2027-03-14', '2027-03-15'].map((date) => localInstant(date, '09:00', 'America/New_York').toISOString()),
    newYorkGap: localInstant('2027-03-14', '02:30', 'America/New_York').toISOString(),
    newYorkRepeat: localInstant('2027-11-07', '01:30', 'America/New_York').toISOString(),
    berlinAutumn: ['2027-10-30', '2027-10-31'].map((date) => localInstant(date, '08:15', 'Europe/Berlin').toISOString()),
    aucklandSpring: localInstant('2027-09-26', '09:00', 'Pacific/Auckland').toISOString(),
  };
}

describe('recurrence schedules', () => {
  it('answer the same under every process time zone, as RFC 5545 and the account zone say', () => {
    const expected = {
      monthly31: ['2027-01-31', '2027-03-31', '2027-05-31', '2027-07-31', '2027-08-31', '2027-10-31', '2027-12-31'],
      leapDay: ['2028-02-29', '2032-02-29'],
      biweekly: ['2027-03-01', '2027-03-04', '2027-03-15', '2027-03-18', '2027-03-29'],
      lastFriday: ['2027-01-29', '2027-02-26', '2027-03-26'],
      newYorkSpring: ['2027-03-13T14:00:00.000Z', '2027-03-14T13:00:00.000Z', '2027-03-15T13:00:00.000Z'],
      // 02:30 does not exist on 2027-03-14 in New York: read with the offset before the change, it is 03:30 EDT.
      newYorkGap: '2027-03-14T07:30:00.000Z',
      // 01:30 happens twice on 2027-11-07: the first (EDT).
      newYorkRepeat: '2027-11-07T05:30:00.000Z',
      berlinAutumn: ['2027-10-30T06:15:00.000Z', '2027-10-31T07:15:00.000Z'],
      // New Zealand goes to daylight time (+13) at 02:00 that morning.
      aucklandSpring: '2027-09-25T20:00:00.000Z',
    };
    for (const zone of processZones) {
      process.env.TZ = zone;
      expect(new Date('2027-03-01T00:00:00Z').getTimezoneOffset(), zone).toBe(zone === 'UTC' ? 0 : zone === 'Asia/Tokyo' ? -540 : 480);
      expect(answers(), zone).toEqual(expected);
    }
  });

  it('knows which dates are occurrences, and refuses rules outside what a template can follow', () => {
    const schedule = { rule: 'FREQ=WEEKLY;BYDAY=MO', start_date: '2027-03-01', end_date: null, count: null };
    expect(isOccurrence(schedule, '2027-03-08')).toBe(true);
    expect(isOccurrence(schedule, '2027-03-09')).toBe(false);
    expect(isOccurrence(schedule, '2027-02-22')).toBe(false);
    expect(ruleProblem('FREQ=WEEKLY;BYDAY=MO')).toBeNull();
    expect(ruleProblem('RRULE:freq=weekly;byday=mo')).toBeNull();
    for (const rule of ['FREQ=SECONDLY', 'FREQ=WEEKLY;UNTIL=20270101T000000Z', 'FREQ=DAILY;BYHOUR=9', 'DTSTART:20270101T000000Z', 'FREQ=MONTHLY;BYMONTHDAY=0', 'FREQ=DAILY;INTERVAL=0', 'INTERVAL=2', '']) {
      expect(ruleProblem(rule), rule).toEqual(expect.any(String));
    }
  });
});
