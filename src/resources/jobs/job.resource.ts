import { addError } from '../../kernel/body.ts';
import { currentTenant } from '../../kernel/context.ts';
import { rangeOps } from '../../kernel/listing.ts';
import type { ResourceDefinition } from '../../kernel/resource.ts';
import { checkParentAmount, lineitemCollection } from '../lineitems/lineitems.ts';
import { checkWorkLocation } from './work-location.ts';

export const jobResource: ResourceDefinition = {
  name: 'job',
  plural: 'jobs',
  className: 'Job',
  model: 'job',
  table: 'jobs',
  scope: 'jobs',
  description: 'Work to be done at a site for a customer, with its schedule, assigned users and line items.',
  fields: {
    customer_id: { kind: 'uuid', create: 'optional', update: 'optional', references: { model: 'customer', live: true, label: 'Customer' }, description: "Default: the site's customer." },
    site_id: { kind: 'uuid', create: 'optional', update: 'optional', references: { model: 'site', live: true, label: 'Site' }, description: 'Required unless AddressRequired is No; taken from system_id when omitted; must belong to customer_id.' },
    contact_id: { kind: 'uuid', create: 'optional', update: 'optional', references: { model: 'contact', live: true, label: 'Contact' }, description: 'On-site contact.' },
    system_id: { kind: 'uuid', create: 'optional', update: 'optional', references: { model: 'system', live: true, label: 'System' }, description: 'Required when the System module is on; must belong to the site.' },
    title: { kind: 'string', create: 'optional', update: 'optional' },
    scope_of_work: { kind: 'text', create: 'optional', update: 'optional' },
    work_description: { kind: 'text', create: 'optional', update: 'optional', description: 'Internal.' },
    customer_notes: { kind: 'text', create: 'optional', update: 'optional', description: 'Internal.' },
    reference: { kind: 'string', create: 'optional', update: 'optional', description: 'Persisted and returned.' },
    job_type: { kind: 'string', create: 'optional', update: 'optional' },
    priority: { kind: 'string', create: 'optional', update: 'optional' },
    due_date: { kind: 'date', create: 'optional', update: 'optional' },
    scheduled_start: { kind: 'datetime', create: 'optional', update: 'optional', description: 'Dispatch: when the visit starts.' },
    scheduled_end: { kind: 'datetime', create: 'optional', update: 'optional', description: 'Dispatch: when the visit ends (not before scheduled_start).' },
  },
  readOnly: {
    amount: { kind: 'decimal', nullable: false, description: 'Sum of the line totals.' },
    estimate_id: { kind: 'uuid', nullable: true, description: 'The estimate this job was converted from.' },
  },
  children: {
    lineitems: lineitemCollection('job_id'),
    assignments: {
      model: 'jobAssignment',
      foreignKey: 'job_id',
      label: 'job assignment',
      description: 'Users assigned to the job (dispatch). Snapshot on update like lineitems.',
      fields: { user_id: { kind: 'int64', create: 'required', update: 'optional', nullable: false, description: 'A user of the account.' } },
      async compute({ tx, entry, at, errors }) {
        if (entry.user_id === undefined) return addError(errors, `${at}.user_id`, 'is missing');
        const user = await tx.user.count({ where: { id: entry.user_id as bigint } });
        if (user === 0) addError(errors, `${at}.user_id`, 'does not match any user of this account');
      },
    },
  },
  conventions: { number: true, status: true, labels: true, customFields: true, softDelete: true },
  list: {
    filters: {
      status: { type: 'string', ops: ['eq', 'in'] },
      customer_id: { type: 'uuid', ops: ['eq'] },
      site_id: { type: 'uuid', ops: ['eq'] },
      scheduled_start: { type: 'datetime', ops: rangeOps },
      created_at: { type: 'datetime', ops: rangeOps },
      updated_at: { type: 'datetime', ops: rangeOps },
    },
    sorts: { created_at: { type: 'datetime' }, updated_at: { type: 'datetime' }, number: { type: 'string' }, status: { type: 'string' } },
    defaultSort: '-created_at',
    searchable: 'number, job type, status, reference, labels, customer organization, site name and address, assignee names and system type',
  },
  uniqueIndexes: { jobs_account_id_number_key: { field: 'number', message: 'has already been taken' } },
  hooks: {
    async beforeWrite(args) {
      await checkWorkLocation(args, 'always');
      const { values, existing, errors } = args;
      const start = ('scheduled_start' in values ? values.scheduled_start : existing?.scheduled_start) as Date | null | undefined;
      const end = ('scheduled_end' in values ? values.scheduled_end : existing?.scheduled_end) as Date | null | undefined;
      if (start && end && end.getTime() < start.getTime()) addError(errors, 'scheduled_end', 'must not be before scheduled_start');
    },
    async afterWrite({ tx, row }) {
      await checkParentAmount(tx, 'job_id', row.id);
      await tx.$executeRawUnsafe(
        `UPDATE jobs j SET
           amount = coalesce((SELECT sum(line_total) FROM lineitems WHERE job_id = j.id), 0),
           search_text = lower(concat_ws(' ', j.number, j.job_type, j.status, j.reference, array_to_string(j.labels, ' '),
             (SELECT organization FROM customers WHERE id = j.customer_id),
             (SELECT concat_ws(' ', site_name, street, street2, city, state, zip_code) FROM sites WHERE id = j.site_id),
             (SELECT string_agg(u.name, ' ') FROM job_assignments a JOIN users u ON u.id = a.user_id WHERE a.job_id = j.id),
             (SELECT system_type FROM systems WHERE id = j.system_id)))
         WHERE j.id = $1::uuid AND j.account_id = $2::uuid`,
        row.id,
        currentTenant(),
      );
    },
  },
};
