import { customFieldTypes } from '../../kernel/lookups.ts';
import { relatedNames } from '../catalog.ts';
import { wireShape, type WireField } from '../../kernel/wire-shape.ts';

// The entries of the lookup catalogs (GET /statuses, /labels, /custom_field_definitions and GraphQL statuses,
// labels, customFieldDefinitions) and of the shared system options catalog (GET /system_options).

const relatedName: WireField = { kind: 'string', enum: relatedNames, description: 'The resource class the entry belongs to.' };
const position: WireField = { kind: 'integer', description: 'Order within the resource class.' };
const timestamps = { created_at: { kind: 'datetime' }, updated_at: { kind: 'datetime' } } as const satisfies Record<string, WireField>;

export const statusShape = wireShape({
  name: 'Status',
  description: 'A live status a record of the resource class may take ({status} fields hold its {display_name}).',
  fields: { id: { kind: 'uuid' }, related_name: relatedName, display_name: { kind: 'string', description: 'The name of the status, as {status} fields hold it.' }, position, ...timestamps },
});

export const labelShape = wireShape({
  name: 'Label',
  description: 'A label records of the resource class may carry ({labels} hold {display_name} values).',
  fields: { id: { kind: 'uuid' }, related_name: relatedName, display_name: { kind: 'string', description: 'The name of the label, as {labels} hold it.' }, position, ...timestamps },
});

export const customFieldDefinitionShape = wireShape({
  name: 'CustomFieldDefinition',
  description: 'A custom field of the resource class; its id keys {custom_fields}.',
  fields: {
    id: { kind: 'uuid' },
    related_name: relatedName,
    name: { kind: 'string', description: 'Name of the custom field.' },
    field_type: { kind: 'string', enum: customFieldTypes, description: 'text, number, date, checkbox, select, multiselect or attachment.' },
    options: { kind: 'string[]', description: 'Choices of select and multiselect fields; of an attachment field, the content types it accepts (`image/png`, `image/*`; empty: any).' },
    required: { kind: 'boolean', description: 'Whether every record of the class must have a value.' },
    max_size_bytes: { kind: 'integer', nullable: true, description: 'Of an attachment field, the largest file it holds in bytes (null: the default, 26214400); null for other types.' },
    position,
    ...timestamps,
  },
});

export const systemOptionShape = wireShape({
  name: 'SystemOption',
  description: "An entry of the shared, read-only system options catalog (a system's or site's {system_option_id}).",
  fields: {
    id: { kind: 'uuid' },
    system_type: { kind: 'string', description: "Kind of equipment the option belongs to (a system's {system_type}), e.g. HVAC." },
    name: { kind: 'string', description: 'Name of the option.' },
    position: { kind: 'integer', description: 'Display order within the catalog.' },
  },
});
