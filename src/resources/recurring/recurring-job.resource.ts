import { defineResource } from '../../kernel/define-resource.ts';
import { rangeOps } from '../../kernel/listing.ts';
import { checkUserEntries } from '../accounts/active-user.ts';
import { jobResource } from '../jobs/job.resource.ts';
import { checkWorkLocation } from '../jobs/work-location.ts';
import { lineitemCollection } from '../lineitems/lineitems.ts';
import { refreshParentTotals } from '../lineitems/parent-totals.ts';
import { recurringActions } from './recurring.actions.ts';
import { generateAfterWrite } from './generator.ts';
import { checkSchedule, scheduleFields, templateReadOnly } from './recurring-template.ts';

// Recurring jobs: a job template (the job's own fields, checked by the job's rules: work-location.ts) and a
// schedule (recurring-template.ts). Each occurrence of the schedule becomes one job (generator.ts), with the
// template's fields, lines (copied as stored), assignees, labels and custom fields, due on the occurrence and, when
// the template has a start time, scheduled at that local time.

const HORIZON_DAYS = 30;
const jobFields = jobResource.fields;

export const recurringJobResource = defineResource({
  name: 'recurring_job',
  description: 'A job that repeats: a job template (customer, site, scope, line items, assignees ...) and the schedule each job is created on, once per occurrence.',
  fields: {
    customer_id: jobFields.customer_id,
    site_id: jobFields.site_id,
    contact_id: jobFields.contact_id,
    system_id: jobFields.system_id,
    project_id: jobFields.project_id,
    title: jobFields.title,
    scope_of_work: jobFields.scope_of_work,
    work_description: jobFields.work_description,
    customer_notes: jobFields.customer_notes,
    reference: jobFields.reference,
    job_type: jobFields.job_type,
    priority: jobFields.priority,
    ...scheduleFields(HORIZON_DAYS, true),
  },
  readOnly: templateReadOnly,
  children: {
    lineitems: lineitemCollection('recurring_job_id'),
    assignments: {
      model: 'recurringJobAssignment',
      table: 'recurring_job_assignments',
      foreignKey: 'recurring_job_id',
      label: 'recurring job assignment',
      description: 'Users each job is assigned to, each once.',
      writeRule: jobResource.children!.assignments!.writeRule,
      fields: jobResource.children!.assignments!.fields,
      compute: (args) => checkUserEntries(args, (at) => `${at}.user_id`),
    },
  },
  conventions: { number: true, labels: true, customFields: true, softDelete: true, lookupsOf: 'Job' },
  actions: recurringActions('recurring_job'),
  relations: {
    jobs: { kind: 'collection', model: 'job', column: 'recurring_job_id', description: 'The live jobs the template created, oldest first, not paginated.' },
  },
  list: {
    filters: { status: ['eq', 'in'], customer_id: ['eq'], created_at: rangeOps, updated_at: rangeOps },
    sorts: { created_at: true, updated_at: true, number: true, status: true },
    defaultSort: '-created_at',
    search: { fields: ['number', 'title', 'job_type', 'reference', 'rule'] },
  },
  uniqueIndexes: {
    recurring_job_assignments_account_id_recurring_job_id_user__key: { field: 'assignments', message: 'would assign a user twice while moving users between entries with id (send the entries without id)' },
  },
  hooks: {
    async beforeWrite(args) {
      checkSchedule(args, HORIZON_DAYS);
      await checkWorkLocation(args, 'always');
    },
    async afterWrite({ tx, row }) {
      await refreshParentTotals(tx, 'recurring_job', row.id);
    },
    afterCommit: generateAfterWrite('recurring_job'),
  },
});
