import { addError } from '../../kernel/body.ts';
import { AppError } from '../../kernel/errors.ts';
import { rangeOps } from '../../kernel/listing.ts';
import { defineResource } from '../../kernel/define-resource.ts';
import { checkLinkInput, linkContact } from './contact-linkage.service.ts';
import { linkableTypes } from './linkables.ts';
import { contactLinkageActions } from './contact-linkage.actions.ts';
import { contactLinkagesRelation } from './contact-linkage.relations.ts';
import { vocabulary } from '../../kernel/vocabulary.ts';

export const phoneKinds = vocabulary('PhoneNumberKind', ['mobile', 'office', 'home', 'fax', 'other'], {
  description: 'The kind of a phone number.',
  describe: (kind) => ({ mobile: 'A mobile phone.', office: 'An office line.', home: 'A home line.', fax: 'A fax number.', other: 'Any other number.' })[kind],
});

/** The Contact declaration; linking on create goes through the linkage rules (contact-linkage.service.ts). */
export const contactResource = defineResource({
  name: 'contact',
  description:
    "A person attached to customers, leads or sites through linkages. {linkable_id} and {linkable_type} show the contact's main linkage: where it is the record's primary contact, otherwise its oldest.",
  fields: {
    first_name: { kind: 'string', create: 'optional', update: 'optional', description: 'First name.' },
    last_name: { kind: 'string', create: 'optional', update: 'optional', description: 'Last name.' },
    email: { kind: 'email', create: 'optional', update: 'optional', description: 'Email address.' },
    phone: { kind: 'string', create: 'optional', update: 'optional', max: 64, description: 'Office phone.' },
    mobile: { kind: 'string', create: 'optional', update: 'optional', max: 64, description: 'Mobile phone.' },
    title: { kind: 'string', create: 'optional', update: 'optional', description: 'Job title.' },
    contact_method: { kind: 'string', create: 'optional', update: 'optional', description: 'Preferred channel hint.' },
    linkable_id: { kind: 'uuid', create: 'optional', update: 'not_accepted', nullable: false, description: 'Id of the record to link the new contact to (with {linkable_type}).' },
    linkable_type: { kind: 'string', enum: linkableTypes, create: 'optional', update: 'not_accepted', nullable: false, description: 'The type of the record to link the new contact to: Customer, Lead or Site (with {linkable_id}).' },
  },
  writeOnly: ['linkable_id', 'linkable_type'],
  readOnly: {
    linkable_id: { kind: 'uuid', nullable: true, description: 'The main linkage: where the contact is primary, otherwise its oldest.' },
    linkable_type: { kind: 'string', nullable: true, enum: linkableTypes, description: 'Customer, Lead or Site of the main linkage.' },
  },
  children: {
    phone_numbers: {
      model: 'phoneNumber',
      table: 'phone_numbers',
      foreignKey: 'contact_id',
      label: 'phone number',
      description: 'Phone numbers of the contact, in order.',
      writeRule:
        'On create, supplying it suppresses the automatic entry made from {mobile}. On update a snapshot: an entry with id changes that entry, an entry without id adds one, entries whose id is absent are removed; omit the field to keep the list.',
      fields: {
        number: { kind: 'string', create: 'required', update: 'optional', nullable: false, max: 64, description: 'The phone number.' },
        kind: { kind: 'string', enum: phoneKinds, create: 'optional', update: 'optional', nullable: false, alwaysSet: true, description: `Kind of number: ${phoneKinds.join(', ')}.`, writeRule: 'Default mobile.' },
        extension: { kind: 'string', create: 'optional', update: 'optional', max: 16, description: 'Extension.' },
      },
    },
  },
  conventions: { labels: true, customFields: true, softDelete: true },
  errors: { delete: ['contact.has_linkages'] },
  relations: { linkages: contactLinkagesRelation },
  list: {
    filters: { created_at: rangeOps, updated_at: rangeOps },
    sorts: { created_at: true, updated_at: true },
    defaultSort: '-created_at',
    search: { fields: ['first_name', 'last_name', 'email', 'title'], text: 'first name, last name, email and title' },
  },
  actions: contactLinkageActions,
  hooks: {
    async beforeWrite({ mode, input, values, children, errors }) {
      if (mode !== 'create') return;
      if ((input.linkable_id === undefined) !== (input.linkable_type === undefined)) {
        addError(errors, input.linkable_id === undefined ? 'linkable_id' : 'linkable_type', 'is missing ({linkable_id} and {linkable_type} go together)');
      }
      // The legacy automatic phone entry made from mobile, unless phone_numbers is supplied.
      if (children.phone_numbers === undefined && typeof values.mobile === 'string' && values.mobile !== '') {
        children.phone_numbers = [{ number: values.mobile, kind: 'mobile' }];
      }
    },
    async afterWrite({ tx, ctx, mode, row, values }) {
      if (mode !== 'create' || values.linkable_id === undefined) return;
      const errors = {};
      const link = checkLinkInput({ linkable_id: values.linkable_id, linkable_type: values.linkable_type }, errors);
      if (!link) throw new AppError('validation.failed', 'linkable_id/linkable_type are invalid', { errors });
      await linkContact(tx, ctx, row.id, link, row.created_at);
    },
    async beforeDelete({ tx, row }) {
      const linked = await tx.contactLinkage.count({ where: { contact_id: row.id } });
      if (linked > 0) {
        throw new AppError('contact.has_linkages', `The contact has ${linked} linkage(s); unlink it (DELETE /contacts/${row.id}/linkages/{linkage_id}) before deleting it.`);
      }
    },
  },
});
