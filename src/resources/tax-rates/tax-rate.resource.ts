import { rangeOps } from '../../kernel/listing.ts';
import { defineResource } from '../../kernel/define-resource.ts';

export const taxRateResource = defineResource({
  name: 'tax_rate',
  description: 'A sales tax rate, in percent (8.25 = 8.25%), referenced by {tax_rate_id} on estimates and lines.',
  fields: {
    name: { kind: 'string', create: 'required', update: 'optional', nullable: false, description: 'Name of the tax rate.' },
    rate: { kind: 'decimal', scale: 4, range: [0, 100], create: 'required', update: 'optional', nullable: false, description: 'Percent, 0 to 100.' },
    active: { kind: 'boolean', create: 'optional', update: 'optional', nullable: false, alwaysSet: true, description: 'Whether the rate can be put on lines: an inactive rate cannot be put on new lines.', writeRule: 'Default true.' },
  },
  conventions: { softDelete: true },
  list: {
    filters: { active: ['eq'], created_at: rangeOps, updated_at: rangeOps },
    sorts: { created_at: true, updated_at: true, name: true },
    defaultSort: 'name',
  },
});
