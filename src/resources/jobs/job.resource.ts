import { addError } from '../../kernel/body.ts';
import { checkUserEntries } from '../accounts/active-user.ts';
import { rangeOps } from '../../kernel/listing.ts';
import { defineResource } from '../../kernel/define-resource.ts';
import { lineitemCollection } from '../lineitems/lineitems.ts';
import { refreshParentTotals } from '../lineitems/parent-totals.ts';
import { checkWorkLocation } from './work-location.ts';
import { jobActions } from './job.actions.ts';
import { taskRelation } from '../tasks/taskables.ts';

export const jobResource = defineResource({
  name: 'job',
  description: 'Work to be done at a site for a customer, with its schedule, assigned users and line items.',
  fields: {
    customer_id: { kind: 'uuid', create: 'optional', update: 'optional', references: { model: 'customer', live: true, label: 'Customer' }, description: 'The customer the job is for.', writeRule: "Default: the site's customer." },
    site_id: {
      kind: 'uuid',
      create: 'optional',
      update: 'optional',
      references: { model: 'site', live: true, label: 'Site' },
      description: 'The site where the work is done.',
      writeRule: 'Required unless the AddressRequired module is No; taken from {system_id} when omitted; must belong to {customer_id}.',
    },
    contact_id: { kind: 'uuid', create: 'optional', update: 'optional', references: { model: 'contact', live: true, label: 'Contact' }, description: 'The on-site contact.' },
    system_id: {
      kind: 'uuid',
      create: 'optional',
      update: 'optional',
      references: { model: 'system', live: true, label: 'System' },
      description: 'The system (equipment) the work is on.',
      writeRule: 'Required when the System module is on; must belong to the site.',
    },
    project_id: {
      kind: 'uuid',
      create: 'optional',
      update: 'optional',
      references: { model: 'project', live: true, label: 'Project' },
      description: 'The project the job belongs to; null when none.',
      writeRule: 'Must be a project of {customer_id}.',
    },
    title: { kind: 'string', create: 'optional', update: 'optional', description: 'Short title of the job.' },
    scope_of_work: { kind: 'text', create: 'optional', update: 'optional', description: 'Scope of work: what is to be done.' },
    work_description: { kind: 'text', create: 'optional', update: 'optional', description: 'Description of the work; internal.' },
    customer_notes: { kind: 'text', create: 'optional', update: 'optional', description: 'Notes about the customer for this job; internal.' },
    reference: { kind: 'string', create: 'optional', update: 'optional', description: 'Partner-defined reference.' },
    job_type: { kind: 'string', create: 'optional', update: 'optional', description: 'Kind of job (free text, e.g. Repair).' },
    priority: { kind: 'string', create: 'optional', update: 'optional', description: 'Priority (free text, e.g. High).' },
    due_date: { kind: 'date', create: 'optional', update: 'optional', description: 'When the job is due.' },
    scheduled_start: { kind: 'datetime', create: 'optional', update: 'optional', description: 'When the visit is scheduled to start (dispatch).' },
    scheduled_end: { kind: 'datetime', create: 'optional', update: 'optional', description: 'When the visit is scheduled to end (dispatch).', writeRule: 'Not before {scheduled_start}.' },
  },
  readOnly: {
    amount: { kind: 'decimal', nullable: false, description: 'Sum of the line totals.' },
    estimate_id: { kind: 'uuid', nullable: true, references: { model: 'estimate', label: 'Estimate' }, description: 'The estimate this job was converted from.' },
    ticket_id: { kind: 'uuid', nullable: true, references: { model: 'ticket', label: 'Ticket' }, description: 'The ticket this job was converted from.' },
    recurring_job_id: { kind: 'uuid', nullable: true, references: { model: 'recurringJob', label: 'RecurringJob' }, description: 'The recurring job that created this job; null for a job made otherwise.' },
    occurrence_date: { kind: 'date', nullable: true, description: 'The occurrence of {recurring_job_id} this job was created for; null for a job made otherwise.' },
  },
  children: {
    lineitems: lineitemCollection('job_id'),
    assignments: {
      model: 'jobAssignment',
      table: 'job_assignments',
      foreignKey: 'job_id',
      label: 'job assignment',
      description: 'Users assigned to the job (dispatch), each once.',
      writeRule:
        'On update a snapshot, as {lineitems}: an entry with id keeps that assignment, an entry without id adds one, assignments whose id is absent are removed; omit the field to keep them.',
      fields: {
        user_id: {
          kind: 'int64',
          create: 'required',
          update: 'optional',
          nullable: false,
          description: 'Id of the assigned user (a user of the account).',
          writeRule: 'Each user once per job; the user must be active unless already assigned to the job.',
        },
      },
      // A user is assigned once per job and must be active unless already assigned (accounts/active-user.ts).
      compute: (args) => checkUserEntries(args, (at) => `${at}.user_id`),
    },
    asset_ids: {
      model: 'jobAsset',
      table: 'job_assets',
      foreignKey: 'job_id',
      label: 'job asset',
      valueField: 'asset_id',
      description: 'The assets the job services (equipment at its site), each once, in the order given.',
      writeRule: 'The list given is the new list; omit the field to keep it. Each must be a live asset at {site_id}, unless the job already names it.',
      fields: {
        asset_id: { kind: 'uuid', create: 'required', update: 'optional', nullable: false, description: 'The id of an asset the job services.' },
      },
      // One lookup for every asset of the write. An asset the job already names stays (deleted or moved since).
      async compute({ tx, parent, entries, existing, errors }) {
        const named = new Set(existing.map((link) => String(link.asset_id)));
        const fresh = [...new Set(entries.map((e) => String(e.entry.asset_id).toLowerCase()).filter((id) => !named.has(id)))];
        const assets = new Map(
          fresh.length === 0 ? [] : (await tx.asset.findMany({ where: { id: { in: fresh }, deleted_at: null }, select: { id: true, site_id: true } })).map((a) => [a.id, a]),
        );
        for (const { entry, at } of entries) {
          const id = String(entry.asset_id).toLowerCase();
          entry.asset_id = id;
          if (named.has(id)) continue;
          const asset = assets.get(id);
          if (!asset) addError(errors, at, 'does not match any Asset');
          else if (asset.site_id !== parent.site_id) addError(errors, at, 'is an asset at another site than {site_id}');
        }
      },
    },
  },
  conventions: { number: true, status: { defaults: ['Pending', 'Scheduled', 'In Progress', 'Completed', 'Cancelled'] }, labels: true, customFields: true, softDelete: true },
  actions: jobActions,
  // A dispatch board follows one window of scheduled starts and some technicians (jobEvents(filter)).
  events: {
    subscriptionFilters: {
      window: 'scheduled_start',
      members: { name: 'assignee_ids', collection: 'assignments', key: 'user_id', description: 'Only jobs assigned to one of these users.' },
    },
  },
  relations: {
    invoices: { kind: 'collection', model: 'invoice', column: 'job_id', description: 'The live invoice that bills the job (at most one), as a list.' },
    tasks: taskRelation('Job'),
    purchase_orders: { kind: 'collection', model: 'purchaseOrder', column: 'job_id', description: 'Live purchase orders placed for the job, oldest first, not paginated.' },
    assignees: {
      kind: 'through',
      via: 'assignments',
      model: 'user',
      many: true,
      idOf: (assignment) => String(assignment.user_id),
      description: 'The users assigned to the job, in the order of assignments.',
    },
    assets: {
      kind: 'through',
      via: 'asset_ids',
      model: 'asset',
      many: true,
      idOf: (assetId) => String(assetId),
      description: 'The live assets the job names, in the order of {asset_ids}.',
    },
  },
  list: {
    filters: {
      status: ['eq', 'in'],
      customer_id: ['eq'],
      site_id: ['eq'],
      asset_id: { type: 'uuid', ops: ['eq'], via: { table: 'job_assets', key: 'job_id' } },
      project_id: ['eq'],
      recurring_job_id: ['eq'],
      scheduled_start: rangeOps,
      created_at: rangeOps,
      updated_at: rangeOps,
    },
    sorts: {
      created_at: true,
      updated_at: true,
      number: true,
      status: true,
      // Unscheduled jobs come last with sort=scheduled_start, first with sort=-scheduled_start.
      scheduled_start: { nullable: true },
    },
    defaultSort: '-created_at',
    search: { fields: ['number', 'job_type', 'status', 'reference', 'labels'], text: 'number, job type, status, reference, labels, customer organization, site name and address, assignee names and system type' },
  },
  uniqueIndexes: {
    // Reached only when entries that keep their id exchange users (checked one row at a time).
    job_assignments_account_id_job_id_user_id_key: { field: 'assignments', message: 'would assign a user twice while moving users between entries with id (send the entries without id)' },
  },
  hooks: {
    async beforeWrite(args) {
      await checkWorkLocation(args, 'always');
      const { values, existing, errors } = args;
      const start = 'scheduled_start' in values ? values.scheduled_start : existing?.scheduled_start;
      const end = 'scheduled_end' in values ? values.scheduled_end : existing?.scheduled_end;
      if (start && end && end.getTime() < start.getTime()) addError(errors, 'scheduled_end', 'must not be before {scheduled_start}');
    },
    async afterWrite({ tx, row }) {
      // amount and search_text (fl_job_search_text; triggers refresh it when a related record is renamed).
      await refreshParentTotals(tx, 'job', row.id);
    },
  },
});
