import type { WireShape } from '../../kernel/wire-shape.ts';
import { vocabulary } from '../../kernel/vocabulary.ts';

/** What has become of an occurrence of a recurring template (the occurrence ledger), or `upcoming`. */
export const occurrenceStates = vocabulary('OccurrenceState', ['upcoming', 'created', 'skipped', 'missed', 'failed'], {
  description: 'What has become of an occurrence of a recurring template.',
  describe: (value) =>
    ({
      upcoming: 'Not created yet: it will be once it is inside the horizon (while the template is active).',
      created: 'Its job or invoice was created; it is never created again, even if that record is deleted.',
      skipped: 'Skipped on purpose: it is not created.',
      missed: 'Its date had passed when the scheduler reached it (the server was down longer than the horizon): not created.',
      failed: "The record's rules refused it when it was due (reason): not created.",
    })[value],
});

/** One occurrence of a recurring template, as the occurrences preview and the skip action serve it. */
export const occurrenceShape = {
  name: 'RecurringOccurrence',
  description: 'One occurrence of a recurring template: its date and what has become of it.',
  fields: {
    date: { kind: 'string', description: 'The date of the occurrence (YYYY-MM-DD).' },
    state: { kind: 'string', enum: occurrenceStates, description: 'upcoming, created, skipped, missed or failed.' },
    record_id: { kind: 'uuid', nullable: true, description: 'The id of the job or invoice created for it; null unless created.' },
    scheduled_start: { kind: 'datetime', nullable: true, description: "When its visit starts (a recurring job with a start time: that local time in the account's time zone); null otherwise." },
    reason: { kind: 'string', nullable: true, description: 'Why the record was refused (failed); null otherwise.' },
  },
} as const satisfies WireShape;
