import type { TenantTx, TenantClient } from './tenancy.ts';
import { vocabulary } from './vocabulary.ts';

// Tenant-configured lookup values: statuses, labels and custom field definitions, per resource class
// (`related_name`: Customer, Job, Estimate ...). Only live rows (not deleted) count. Which classes exist and their
// default statuses come from the resource declarations (src/resources/catalog.ts).

type Reader = TenantTx | TenantClient;

export const customFieldTypes = vocabulary('CustomFieldType', ['text', 'number', 'date', 'checkbox', 'select', 'multiselect', 'attachment'], {
  description: 'The type of a custom field: what its values are.',
  describe: (type) =>
    ({
      text: 'Free text.',
      number: 'A number.',
      date: 'A calendar date, YYYY-MM-DD.',
      checkbox: 'True or false.',
      select: "One of the definition's options.",
      multiselect: "A list of the definition's options.",
      attachment: 'Files attached to the record, written separately from its other fields.',
    })[type],
});
export type CustomFieldType = (typeof customFieldTypes)[number];

export interface CustomFieldDefinition {
  id: string;
  name: string;
  field_type: CustomFieldType;
  /** select and multiselect: the choices; attachment: the content types allowed (`image/png`, `image/*`; empty: any). */
  options: string[];
  required: boolean;
  /** attachment: the largest file in bytes (null: DEFAULT_MAX_FILE_BYTES, src/kernel/attachments.ts). */
  max_size_bytes: number | null;
}

export async function liveStatuses(db: Reader, relatedName: string): Promise<string[]> {
  const rows = await db.status.findMany({
    where: { related_name: relatedName, deleted_at: null },
    orderBy: [{ position: 'asc' }, { created_at: 'asc' }],
    select: { display_name: true },
  });
  return rows.map((r) => r.display_name);
}

export async function liveLabels(db: Reader, relatedName: string): Promise<string[]> {
  const rows = await db.label.findMany({
    where: { related_name: relatedName, deleted_at: null },
    select: { display_name: true },
  });
  return rows.map((r) => r.display_name);
}

export async function customFieldDefinitions(db: Reader, relatedName: string): Promise<CustomFieldDefinition[]> {
  const rows = await db.customFieldDefinition.findMany({
    where: { related_name: relatedName, deleted_at: null },
    orderBy: [{ position: 'asc' }, { created_at: 'asc' }],
    select: { id: true, name: true, field_type: true, options: true, required: true, max_size_bytes: true },
  });
  return rows as CustomFieldDefinition[];
}
