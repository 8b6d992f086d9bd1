import { addError } from '../../kernel/body.ts';
import { rangeOps } from '../../kernel/listing.ts';
import { defineResource } from '../../kernel/define-resource.ts';
import { tenantQuery } from '../../kernel/tenant-sql.ts';
import { unlinkRecords } from '../contacts/contact-linkage.service.ts';
import { lockLinkable } from '../contacts/linkables.ts';
import { contactRelations } from '../contacts/contact-linkage.relations.ts';
import { vocabulary } from '../../kernel/vocabulary.ts';
import { taskRelation } from '../tasks/taskables.ts';

export const siteableTypes = vocabulary('SiteableType', ['Customer', 'Lead'], {
  description: 'The type of the record a site belongs to.',
  describe: (type) => ({ Customer: 'The site belongs to a customer.', Lead: 'The site belongs to a lead.' })[type],
});

/** The highest position a site can have (the declared range of position). */
export const MAX_SITE_POSITION = 1_000_000;

export const siteResource = defineResource({
  name: 'site',
  description: "A physical service location owned by a customer or a lead. The parent's first site (by position) is its primary billing address.",
  fields: {
    site_name: { kind: 'string', create: 'required', update: 'optional', nullable: false, description: 'Display name.' },
    street: { kind: 'string', create: 'required', update: 'optional', nullable: false, description: 'Street line 1.' },
    street2: { kind: 'string', create: 'optional', update: 'optional', description: 'Street line 2.' },
    city: { kind: 'string', create: 'required', update: 'optional', nullable: false, description: 'City.' },
    state: { kind: 'string', create: 'required', update: 'optional', nullable: false, description: 'State or province.' },
    zip_code: { kind: 'string', create: 'optional', update: 'optional', max: 32, description: 'ZIP or postal code.' },
    description: { kind: 'text', create: 'optional', update: 'optional', description: 'Free-text description of the site.' },
    latitude: { kind: 'number', create: 'optional', update: 'optional', range: [-90, 90], description: 'Degrees, -90 to 90; stored as given (no geocoding): null unless supplied.' },
    longitude: { kind: 'number', create: 'optional', update: 'optional', range: [-180, 180], description: 'Degrees, -180 to 180; stored as given (no geocoding): null unless supplied.' },
    recurring_instructions: { kind: 'text', create: 'optional', update: 'optional', description: 'Standing instructions for jobs at the site.' },
    position: {
      kind: 'integer',
      create: 'optional',
      update: 'optional',
      nullable: false,
      alwaysSet: true,
      range: [0, MAX_SITE_POSITION],
      description: "Display order among the parent's sites (ties by age).",
      writeRule: `Default: the end of the list (the largest live position + 1, at most ${MAX_SITE_POSITION}).`,
    },
    system_option_id: { kind: 'uuid', create: 'optional', update: 'optional', references: { model: 'systemOption', label: 'system option' }, description: 'The entry of the system options catalog for the site.' },
    siteable_id: { kind: 'uuid', create: 'required', update: 'immutable', nullable: false, description: 'The id of the parent customer or lead.' },
    siteable_type: { kind: 'string', enum: siteableTypes, create: 'required', update: 'immutable', nullable: false, description: 'The type of the parent: Customer or Lead.' },
  },
  readOnly: {
    customer_id: { kind: 'uuid', nullable: true, references: { model: 'customer', label: 'Customer' }, description: 'The parent customer (when {siteable_type} is Customer); a list filter.' },
    lead_id: { kind: 'uuid', nullable: true, references: { model: 'lead', label: 'Lead' }, description: 'The parent lead (when {siteable_type} is Lead); a list filter.' },
  },
  relations: {
    systems: { kind: 'collection', model: 'system', column: 'site_id', description: 'Live systems installed at the site, oldest first, not paginated.' },
    assets: { kind: 'collection', model: 'asset', column: 'site_id', description: 'Live assets installed at the site, oldest first, not paginated.' },
    tickets: { kind: 'collection', model: 'ticket', column: 'site_id', description: 'Live tickets about the site, oldest first, not paginated.' },
    ...contactRelations('Site', 'site'),
    tasks: taskRelation('Site'),
  },
  // The order of the SQL function that also chooses a parent's primary site (position, then age).
  siblingOrder: 'fl_site_order_key(t)',
  conventions: { labels: true, customFields: true, softDelete: true },
  list: {
    filters: {
      customer_id: ['eq'],
      lead_id: ['eq'],
      created_at: rangeOps,
      updated_at: rangeOps,
    },
    sorts: { created_at: true, updated_at: true, site_name: true, position: true },
    defaultSort: '-created_at',
    search: { fields: ['site_name', 'street', 'city', 'state', 'zip_code'], text: "site name, street, city, state, zip code and the parent's name (customer organization)" },
  },
  hooks: {
    async beforeWrite({ tx, mode, values, errors }) {
      // Both are required on create: absent, they are errors already.
      const { siteable_type: type, siteable_id: parentId } = values;
      if (mode !== 'create' || type === undefined || parentId === undefined || errors.siteable_id || errors.siteable_type) return;
      // Locking the parent queues concurrent site creates of one parent, so positions are handed out in turn.
      if (!(await lockLinkable(tx, type, parentId))) {
        addError(errors, 'siteable_id', `does not match any ${type}`);
        return;
      }
      values.customer_id = type === 'Customer' ? parentId : null;
      values.lead_id = type === 'Lead' ? parentId : null;
      if (values.position === undefined) {
        // The end of the list. Past the bound, the new site shares the last position and still sorts last (by age).
        const [{ next }] = await tenantQuery<{ next: number }>(
          tx,
          `SELECT least(coalesce(max(position) + 1, 0), $3)::int AS next FROM sites WHERE account_id = $1::uuid AND siteable_id = $2::uuid AND deleted_at IS NULL`,
          parentId,
          MAX_SITE_POSITION,
        );
        values.position = next;
      }
    },
    async afterDelete({ tx, ctx, row }) {
      await unlinkRecords(tx, ctx, 'Site', [row.id]);
    },
  },
});
