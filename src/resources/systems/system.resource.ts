import { AppError } from '../../kernel/errors.ts';
import { rangeOps } from '../../kernel/listing.ts';
import type { ResourceDefinition } from '../../kernel/resource.ts';
import { lockLinkable } from '../contacts/linkables.ts';

/** Equipment installed at a site (a furnace, a water heater ...). */
export const systemResource: ResourceDefinition = {
  name: 'system',
  plural: 'systems',
  className: 'System',
  model: 'system',
  table: 'systems',
  scope: 'systems',
  description:
    'Equipment installed at a site. Creating a system whose system_type already exists on the site answers 409 system.duplicate unless confirmed: true is sent.',
  fields: {
    site_id: { kind: 'uuid', create: 'required', update: 'immutable', nullable: false, references: { model: 'site', live: true, label: 'Site' } },
    system_type: { kind: 'string', create: 'required', update: 'optional', nullable: false, description: 'Kind of equipment, e.g. HVAC.' },
    name: { kind: 'string', create: 'required', update: 'optional', nullable: false },
    manufacturer: { kind: 'string', create: 'optional', update: 'optional' },
    model: { kind: 'string', create: 'optional', update: 'optional' },
    serial_number: { kind: 'string', create: 'optional', update: 'optional' },
    install_date: { kind: 'date', create: 'optional', update: 'optional' },
    system_option_id: { kind: 'uuid', create: 'optional', update: 'optional', references: { model: 'systemOption', label: 'system option' } },
    confirmed: { kind: 'boolean', create: 'optional', update: 'not_accepted', description: 'true creates a system even when one of the same system_type exists on the site.' },
  },
  writeOnly: ['confirmed'],
  conventions: { customFields: true, softDelete: true },
  errors: { create: ['system.duplicate'] },
  list: {
    filters: {
      site_id: { type: 'uuid', ops: ['eq'] },
      system_type: { type: 'string', ops: ['eq', 'in'] },
      created_at: { type: 'datetime', ops: rangeOps },
      updated_at: { type: 'datetime', ops: rangeOps },
    },
    sorts: { created_at: { type: 'datetime' }, updated_at: { type: 'datetime' }, name: { type: 'string' }, system_type: { type: 'string' } },
    defaultSort: '-created_at',
    searchable: 'system type, name, manufacturer, model and serial number',
  },
  hooks: {
    async beforeWrite({ tx, mode, values, errors }) {
      if (mode !== 'create' || Object.keys(errors).length > 0 || values.confirmed === true) return;
      // Creates on one site queue on the site's row, so two concurrent creates cannot both miss each other.
      await lockLinkable(tx, 'Site', values.site_id as string);
      const same = await tx.system.count({ where: { site_id: values.site_id as string, system_type: values.system_type as string, deleted_at: null } });
      if (same > 0) {
        throw new AppError('system.duplicate', `A ${String(values.system_type)} system already exists on this site; send confirmed: true to add another.`);
      }
    },
  },
};
