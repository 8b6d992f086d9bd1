import { action, type ActionDefinition } from '../../kernel/action.ts';
import type { FieldSpec } from '../../kernel/fields.ts';
import { occurrenceShape } from './occurrence.shape.ts';
import type { TemplateName } from './generator.ts';

// POST /recurring_jobs/{id}/pause, /resume, /skip and GET .../occurrences (and the same of recurring invoices),
// through domain.recurring (recurring.service.ts).

export const skipFields = {
  date: { kind: 'date', create: 'required', update: 'not_accepted', nullable: false, description: 'The date of the occurrence to skip.', writeRule: 'An occurrence of the schedule, today or later, not created yet.' },
} as const satisfies Record<string, FieldSpec>;

export const occurrencesQueryFields = {
  from: { kind: 'date', create: 'optional', update: 'not_accepted', description: "The first date to show; default today in the account's time zone. An earlier date shows what became of past occurrences (created, skipped, missed, failed)." },
  limit: { kind: 'integer', create: 'optional', update: 'not_accepted', range: [1, 100], description: 'How many occurrences to answer, 1 to 100 (default 10).' },
} as const satisfies Record<string, FieldSpec>;

const nouns = { recurring_job: { stem: 'RecurringJob', records: 'jobs', record: 'job', scope: 'recurring_jobs' }, recurring_invoice: { stem: 'RecurringInvoice', records: 'invoices', record: 'invoice', scope: 'recurring_invoices' } } as const;

/** The actions of a recurring template resource. */
export function recurringActions(name: TemplateName): readonly ActionDefinition[] {
  const { stem, records, record, scope } = nouns[name];
  return [
    action({
      name: `pause${stem}`,
      method: 'post',
      path: '/pause',
      scopes: [`${scope}:write`],
      summary: 'Pause the series',
      description: `Stops creating ${records}: status paused. Occurrences created already stay; those that fall in the pause are never created. Pausing a paused template changes nothing. Refused on an ended one (recurring.ended).`,
      body: { empty: true, refusal: 'must be empty: the action takes no input', required: false, description: 'Empty.' },
      response: { records: { [name]: name }, status: 200, description: `{${name}}: the template, paused.` },
      run: ({ domain, ctx, id }) => domain.recurring.pause(ctx, name, id),
      events: [`${name}.updated`],
      errors: ['validation.failed', 'recurring.ended'],
    }),
    action({
      name: `resume${stem}`,
      method: 'post',
      path: '/resume',
      scopes: [`${scope}:write`],
      summary: 'Resume the series',
      description: `Creates ${records} again from today: status active, and the occurrences inside the horizon are created before the answer. Resuming an active template changes nothing. Refused on an ended one (recurring.ended).`,
      body: { empty: true, refusal: 'must be empty: the action takes no input', required: false, description: 'Empty.' },
      response: { records: { [name]: name }, status: 200, description: `{${name}}: the template, active.` },
      run: ({ domain, ctx, id }) => domain.recurring.resume(ctx, name, id),
      events: [`${name}.updated`, `${record}.created`],
      errors: ['validation.failed', 'recurring.ended'],
    }),
    action({
      name: `skip${stem}Occurrence`,
      method: 'post',
      path: '/skip',
      scopes: [`${scope}:write`],
      summary: 'Skip one occurrence',
      description: `Marks one occurrence skipped: its ${record} is never created. {date} must be an occurrence of the schedule, today or later (validation.failed otherwise); one whose ${record} was created already is refused (recurring.occurrence_created: delete the ${record} instead). Skipping a skipped occurrence changes nothing.`,
      body: { fields: skipFields, mode: 'create', key: 'skip', required: true, topLevel: true, description: 'The occurrence: {date}.' },
      response: { shape: occurrenceShape, key: 'occurrence', status: 200, description: 'The occurrence, skipped.' },
      run: ({ domain, ctx, id, input }) => domain.recurring.skip(ctx, name, id, input),
      events: [],
      errors: ['validation.failed', 'recurring.occurrence_created'],
    }),
    action({
      name: `list${stem}Occurrences`,
      method: 'get',
      path: '/occurrences',
      scopes: [`${scope}:read`],
      summary: 'Preview the next occurrences',
      description: `The occurrences of the schedule from {from} (default today in the account's time zone), without creating anything: each with its date, what has become of it (upcoming, created with its ${record}, skipped, missed, failed) and, for a job with a start time, its scheduled start. At most {limit} (default 10). An ended template has none from today on. Not paginated.`,
      query: { fields: occurrencesQueryFields },
      response: { list: occurrenceShape, status: 200, description: 'The occurrences, by date.' },
      run: ({ domain, ctx, id, input }) => domain.recurring.occurrences(ctx, name, id, input),
      events: [],
      errors: [],
      graphql: { field: `${name === 'recurring_job' ? 'recurringJob' : 'recurringInvoice'}Occurrences` },
    }),
  ];
}
