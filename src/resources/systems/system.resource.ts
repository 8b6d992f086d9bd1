import { AppError } from '../../kernel/errors.ts';
import { rangeOps } from '../../kernel/listing.ts';
import { defineResource } from '../../kernel/define-resource.ts';
import { lockLinkable } from '../contacts/linkables.ts';

/** Equipment installed at a site (a furnace, a water heater ...). */
export const systemResource = defineResource({
  name: 'system',
  description:
    'Equipment installed at a site. Creating a system whose {system_type} already exists on the site (ignoring case), or changing a system to such a type, is refused with system.duplicate unless {confirmed} is true.',
  fields: {
    site_id: { kind: 'uuid', create: 'required', update: 'immutable', nullable: false, references: { model: 'site', live: true, label: 'Site' }, description: 'The site where the system is installed.' },
    system_type: { kind: 'string', create: 'required', update: 'optional', nullable: false, description: 'Kind of equipment, e.g. HVAC.' },
    name: { kind: 'string', create: 'required', update: 'optional', nullable: false, description: 'Name of the system.' },
    manufacturer: { kind: 'string', create: 'optional', update: 'optional', description: 'Manufacturer.' },
    model: { kind: 'string', create: 'optional', update: 'optional', description: 'Model.' },
    serial_number: { kind: 'string', create: 'optional', update: 'optional', description: 'Serial number.' },
    install_date: { kind: 'date', create: 'optional', update: 'optional', description: 'When the system was installed.' },
    system_option_id: { kind: 'uuid', create: 'optional', update: 'optional', references: { model: 'systemOption', label: 'system option' }, description: 'The entry of the system options catalog for the system.' },
    confirmed: {
      kind: 'boolean',
      create: 'optional',
      update: 'optional',
      description: 'Confirms a duplicate type: true creates the system, or changes its {system_type}, even when a system of that type exists on the site. Never served.',
    },
  },
  writeOnly: ['confirmed'],
  conventions: { labels: true, customFields: true, softDelete: true },
  relations: {
    assets: { kind: 'collection', model: 'asset', column: 'system_id', description: 'Live assets that belong to the system, oldest first, not paginated.' },
  },
  events: { requiresModule: 'System' },
  errors: { create: ['system.duplicate'], update: ['system.duplicate'] },
  list: {
    filters: {
      site_id: ['eq'],
      system_type: ['eq', 'in'],
      created_at: rangeOps,
      updated_at: rangeOps,
    },
    sorts: { created_at: true, updated_at: true, name: true, system_type: true },
    defaultSort: '-created_at',
    search: { fields: ['system_type', 'name', 'manufacturer', 'model', 'serial_number'], text: 'system type, name, manufacturer, model and serial number' },
  },
  hooks: {
    // One live system of a type per site, types compared ignoring case ("hvac" is "HVAC"), unless confirmed: true.
    // Checked on create and when an update changes system_type (site_id is immutable).
    async beforeWrite({ tx, mode, values, existing, errors }) {
      if (Object.keys(errors).length > 0 || values.confirmed === true) return;
      const type = values.system_type;
      if (type === undefined || (mode === 'update' && type.toLowerCase() === existing?.system_type.toLowerCase())) return;
      // site_id is required on create (without it there is an error above) and immutable.
      const siteId = mode === 'create' ? values.site_id : existing?.site_id;
      if (siteId === undefined) return;
      // Writes on one site queue on the site's row, so two concurrent writes cannot both miss each other.
      await lockLinkable(tx, 'Site', siteId);
      const others = await tx.system.findMany({
        where: { site_id: siteId, deleted_at: null, ...(existing ? { id: { not: existing.id } } : {}) },
        select: { system_type: true },
      });
      if (others.some((other) => other.system_type.toLowerCase() === type.toLowerCase())) {
        throw new AppError('system.duplicate', `A ${type} system already exists on this site; send confirmed: true to ${mode === 'create' ? 'add another' : 'change this one to that type'}.`);
      }
    },
  },
});
