import { addError } from '../../kernel/body.ts';
import { rangeOps } from '../../kernel/listing.ts';
import { defineResource } from '../../kernel/define-resource.ts';
import { unlinkRecords } from '../contacts/contact-linkage.service.ts';
import { leadActions } from './lead.actions.ts';
import { contactRelations } from '../contacts/contact-linkage.relations.ts';
import { taskRelation } from '../tasks/taskables.ts';


export const leadResource = defineResource({
  name: 'lead',
  description: 'A prospective customer. Sites and contacts can belong to a lead; converting the lead turns it into a customer.',
  fields: {
    organization: { kind: 'string', create: 'optional', update: 'optional', description: 'Company name.', writeRule: 'The lead needs {organization}, {first_name} or {last_name}.' },
    first_name: { kind: 'string', create: 'optional', update: 'optional', description: 'First name of the person.' },
    last_name: { kind: 'string', create: 'optional', update: 'optional', description: 'Last name of the person.' },
    email: { kind: 'email', create: 'optional', update: 'optional', description: 'Email address.' },
    phone: { kind: 'string', create: 'optional', update: 'optional', max: 64, description: 'Phone number.' },
    source: { kind: 'string', create: 'optional', update: 'optional', description: 'Where the lead came from (web form, referral ...).' },
    description: { kind: 'text', create: 'optional', update: 'optional', description: 'Free-text description of the lead.' },
    assignee_id: { kind: 'int64', create: 'optional', update: 'optional', references: { model: 'user', label: 'user of this account' }, description: 'Id of the user of the account who follows up the lead.' },
  },
  readOnly: {
    converted_customer_id: { kind: 'uuid', nullable: true, references: { model: 'customer', label: 'Customer' }, description: 'The customer this lead was converted into.' },
    converted_at: { kind: 'datetime', nullable: true, description: 'When the lead was converted into a customer; null until then.' },
  },
  conventions: { number: true, status: { defaults: ['New', 'Contacted', 'Qualified', 'Converted', 'Lost'] }, labels: true, customFields: true, softDelete: true },
  events: { extra: [{ action: 'converted', description: 'The lead was converted into a customer; `data.converted_to.customer_id` names it.' }] },
  relations: {
    sites: { kind: 'collection', model: 'site', column: 'lead_id', description: 'Live sites of this lead by position (the first is its primary billing address), not paginated.' },
    ...contactRelations('Lead', 'lead'),
    deals: { kind: 'collection', model: 'deal', column: 'lead_id', description: 'Live deals with the lead, oldest first, not paginated (converting the lead moves them to its customer).' },
    tasks: taskRelation('Lead'),
  },
  list: {
    filters: {
      status: ['eq', 'in'],
      created_at: rangeOps,
      updated_at: rangeOps,
    },
    sorts: { created_at: true, updated_at: true, number: true, status: true },
    defaultSort: '-created_at',
    search: { fields: ['organization', 'first_name', 'last_name', 'email', 'phone', 'number', 'status'], text: 'organization, first name, last name, email, phone, number and status' },
  },
  actions: leadActions,
  hooks: {
    async beforeWrite({ mode, values, existing, errors }) {
      const named = (v: unknown) => typeof v === 'string' && v !== '';
      const after = { ...(existing ?? {}), ...values };
      if ((mode === 'create' || 'organization' in values || 'first_name' in values || 'last_name' in values) &&
        !named(after.organization) && !named(after.first_name) && !named(after.last_name)) {
        addError(errors, 'organization', 'is missing (give organization, first_name or last_name)');
      }
    },
    async afterDelete({ tx, ctx, row, resources }) {
      await resources('site').removeWhere(tx, ctx, { lead_id: row.id });
      await unlinkRecords(tx, ctx, 'Lead', [row.id]);
    },
  },
});
