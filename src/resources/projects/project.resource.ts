import { addError } from '../../kernel/body.ts';
import { checkUserEntries } from '../accounts/active-user.ts';
import { defineResource } from '../../kernel/define-resource.ts';
import { toWire } from '../../kernel/fields.ts';
import { rangeOps } from '../../kernel/listing.ts';
import { projectRollupRelation } from './project.relations.ts';
import { taskRelation } from '../tasks/taskables.ts';

// Projects: several jobs (and their estimates) under one engagement for a customer, with a team of users
// (user_ids, a list of user ids written as a snapshot), dates, a budget and rollups read when selected.

export const projectResource = defineResource({
  name: 'project',
  description: 'An engagement for a customer that groups several jobs and estimates, with its dates, budget and team.',
  fields: {
    name: { kind: 'string', create: 'required', update: 'optional', nullable: false, description: 'Name of the project.' },
    customer_id: { kind: 'uuid', create: 'required', update: 'optional', nullable: false, references: { model: 'customer', live: true, label: 'Customer' }, description: 'The customer the project is for.' },
    site_id: {
      kind: 'uuid',
      create: 'optional',
      update: 'optional',
      references: { model: 'site', live: true, label: 'Site' },
      description: 'The main site of the project; null when none.',
      writeRule: 'Must belong to {customer_id}.',
    },
    description: { kind: 'text', create: 'optional', update: 'optional', description: 'What the project is about.' },
    start_date: { kind: 'date', create: 'optional', update: 'optional', description: 'When the project starts.' },
    end_date: { kind: 'date', create: 'optional', update: 'optional', description: 'When the project ends.', writeRule: 'Not before {start_date}.' },
    budget_amount: { kind: 'decimal', create: 'optional', update: 'optional', description: 'The budget of the project; null when none.' },
  },
  children: {
    user_ids: {
      model: 'projectUser',
      table: 'project_users',
      foreignKey: 'project_id',
      label: 'project user',
      valueField: 'user_id',
      description: 'The team: ids of the users who work on the project, each once, in the order given.',
      writeRule: 'The list given is the new list; omit the field to keep it. Each must be an active user of the account, unless already on the team.',
      fields: {
        user_id: { kind: 'int64', create: 'required', update: 'optional', nullable: false, description: 'The id of a user on the team.' },
      },
      // Active users of the account, unless already on the team (accounts/active-user.ts).
      compute: (args) => checkUserEntries(args, (at) => at),
    },
  },
  conventions: { number: true, status: { defaults: ['Planned', 'Active', 'On Hold', 'Completed'] }, labels: true, customFields: true, softDelete: true },
  relations: {
    tasks: taskRelation('Project'),
    jobs: { kind: 'collection', model: 'job', column: 'project_id', description: 'Live jobs of the project, oldest first, not paginated.' },
    estimates: { kind: 'collection', model: 'estimate', column: 'project_id', description: 'Live estimates of the project, oldest first, not paginated.' },
    team: {
      kind: 'through',
      via: 'user_ids',
      model: 'user',
      many: true,
      idOf: (userId) => String(userId),
      description: 'The users on the team, in the order of {user_ids}.',
    },
    rollup: projectRollupRelation,
  },
  list: {
    filters: {
      status: ['eq', 'in'],
      customer_id: ['eq'],
      site_id: ['eq'],
      number: ['eq'],
      start_date: rangeOps,
      end_date: rangeOps,
      created_at: rangeOps,
      updated_at: rangeOps,
    },
    sorts: { created_at: true, updated_at: true, name: true, number: true, status: true, start_date: { nullable: true }, end_date: { nullable: true } },
    defaultSort: '-created_at',
    search: { fields: ['name', 'number', 'status', 'description'] },
  },
  hooks: {
    async beforeWrite({ tx, values, existing, errors }) {
      // Calendar dates compare as strings (YYYY-MM-DD), the stored ones as the wire serves them.
      const start = 'start_date' in values ? values.start_date : (toWire('date', existing?.start_date) as string | null);
      const end = 'end_date' in values ? values.end_date : (toWire('date', existing?.end_date) as string | null);
      if (start && end && !errors.start_date && !errors.end_date && end < start) addError(errors, 'end_date', 'must not be before {start_date}');
      if (errors.customer_id || errors.site_id || !('site_id' in values || 'customer_id' in values)) return;
      const siteId = 'site_id' in values ? values.site_id : existing?.site_id;
      const customerId = (values.customer_id ?? existing?.customer_id)?.toLowerCase();
      if (!siteId || !customerId) return;
      const site = await tx.site.findFirst({ where: { id: siteId.toLowerCase(), deleted_at: null }, select: { customer_id: true } });
      if (site && site.customer_id !== customerId) addError(errors, 'site_id', 'does not belong to {customer_id}');
    },
  },
});
