import { addError } from '../../kernel/body.ts';
import { defineResource } from '../../kernel/define-resource.ts';
import { toWire } from '../../kernel/fields.ts';
import { rangeOps } from '../../kernel/listing.ts';

// Assets: equipment installed at a site (an HVAC unit, a boiler, a panel), with its warranty. The customer is the
// site's (never written: it follows the site); the system it belongs to, when named, is at the same site. Jobs
// name the assets they service (jobs.asset_ids); an asset's service history is those jobs by scheduled start.
// Not numbered: the name and the serial number identify a piece of equipment (docs/decisions.md, "Assets").

export const assetResource = defineResource({
  name: 'asset',
  description:
    'Equipment installed at a site: an HVAC unit, a boiler, an electrical panel. The customer is the site\'s; jobs name the assets they service, which gives each asset its service history.',
  fields: {
    site_id: {
      kind: 'uuid',
      create: 'required',
      update: 'optional',
      nullable: false,
      references: { model: 'site', live: true, label: 'Site' },
      description: 'The site where the asset is installed.',
      writeRule: 'Changing it moves the asset: {customer_id} follows the new site, and a {system_id} kept must be at the new site.',
    },
    system_id: {
      kind: 'uuid',
      create: 'optional',
      update: 'optional',
      references: { model: 'system', live: true, label: 'System' },
      description: 'The system the asset belongs to (e.g. the HVAC system a condenser is part of); null when none.',
      writeRule: 'Must be a live system at {site_id}.',
    },
    name: { kind: 'string', create: 'required', update: 'optional', nullable: false, description: 'Name of the asset, e.g. Rooftop unit 2.' },
    make: { kind: 'string', create: 'optional', update: 'optional', max: 128, description: 'Make (manufacturer or brand).' },
    model: { kind: 'string', create: 'optional', update: 'optional', max: 128, description: 'Model name or number.' },
    serial_number: {
      kind: 'string',
      create: 'optional',
      update: 'optional',
      max: 128,
      unique: 'case_insensitive',
      description: 'Serial number of the equipment; when given, unique per account among live assets (case-insensitive).',
    },
    install_date: { kind: 'date', create: 'optional', update: 'optional', description: 'When the asset was installed.' },
    warranty_expires_on: { kind: 'date', create: 'optional', update: 'optional', description: 'The last day of the warranty; null when unknown or none.', writeRule: 'Not before {install_date}.' },
    location_note: { kind: 'text', create: 'optional', update: 'optional', max: 2000, description: 'Where the asset is at the site, e.g. Roof, north side.' },
  },
  readOnly: {
    customer_id: {
      kind: 'uuid',
      nullable: true,
      references: { model: 'customer', label: 'Customer' },
      description: "The customer of the site (null when the site belongs to a lead); set by the server from {site_id}, a list filter.",
    },
  },
  conventions: { status: { defaults: ['Active', 'Inactive', 'Retired'] }, labels: true, customFields: true, softDelete: true },
  relations: {
    jobs: {
      kind: 'collection',
      model: 'job',
      column: 'asset_id',
      via: { table: 'job_assets', key: 'job_id' },
      description: 'Live jobs that name the asset, oldest first, not paginated.',
    },
    service_history: {
      kind: 'collection',
      model: 'job',
      column: 'asset_id',
      via: { table: 'job_assets', key: 'job_id' },
      order: 't.scheduled_start DESC NULLS LAST, t.created_at DESC, t.id DESC',
      description: 'The service history: live jobs that name the asset, the latest scheduled start first (unscheduled jobs last).',
    },
  },
  list: {
    filters: {
      status: ['eq', 'in'],
      site_id: ['eq'],
      customer_id: ['eq'],
      system_id: ['eq'],
      serial_number: ['eq'],
      install_date: rangeOps,
      warranty_expires_on: rangeOps,
      created_at: rangeOps,
      updated_at: rangeOps,
    },
    sorts: { created_at: true, updated_at: true, name: true, status: true, install_date: { nullable: true }, warranty_expires_on: { nullable: true } },
    defaultSort: '-created_at',
    search: { fields: ['name', 'make', 'model', 'serial_number', 'status', 'location_note'] },
  },
  hooks: {
    async beforeWrite({ tx, mode, values, existing, errors }) {
      // Calendar dates compare as strings (YYYY-MM-DD), the stored ones as the wire serves them.
      const installed = 'install_date' in values ? values.install_date : (toWire('date', existing?.install_date) as string | null);
      const expires = 'warranty_expires_on' in values ? values.warranty_expires_on : (toWire('date', existing?.warranty_expires_on) as string | null);
      if (installed && expires && !errors.install_date && !errors.warranty_expires_on && expires < installed) addError(errors, 'warranty_expires_on', 'must not be before {install_date}');
      if (errors.site_id || errors.system_id) return;
      const siteChanged = values.site_id !== undefined && (mode === 'create' || values.site_id.toLowerCase() !== existing?.site_id);
      const siteId = (values.site_id ?? existing?.site_id)?.toLowerCase();
      if (siteId === undefined) return;
      if (siteChanged) {
        // The customer follows the site (the site's parent when it is a customer).
        const site = await tx.site.findFirst({ where: { id: siteId, deleted_at: null }, select: { customer_id: true } });
        (values as Record<string, unknown>).customer_id = site?.customer_id ?? null;
      }
      const systemId = 'system_id' in values ? values.system_id : existing?.system_id;
      if (!systemId || !(siteChanged || 'system_id' in values)) return;
      const system = await tx.system.findFirst({ where: { id: systemId.toLowerCase(), deleted_at: null }, select: { site_id: true } });
      if (system && system.site_id !== siteId) {
        addError(errors, 'system_id', 'system_id' in values ? 'must be a system at {site_id}' : 'is at another site: send a system of the new {site_id}, or null');
      }
    },
  },
});
