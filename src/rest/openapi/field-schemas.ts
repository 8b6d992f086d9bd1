import { NON_BLANK, refusesBlank, valueSchema, type FieldKind, type FieldSpec } from '../../kernel/fields.ts';
import type { ReadOnlyField, RecordFieldInfo } from '../../kernel/resource.ts';
import { decimalInputSchema, decimalNote, decimalServedSchema } from './decimal-schemas.ts';
import { docText } from './doc-text.ts';
import { z } from './zod.ts';

// The schema of one field, derived from its declaration and the kernel's field kinds: the same valueSchema()
// that validates a field at the boundary describes it here. Every function builds new schema instances, so
// building the document twice gives the same result.

/** OpenAPI `format` of a field kind (the zod validators of dates, ids and emails are refinements it cannot see). */
const formats: Partial<Record<FieldKind, string>> = {
  decimal: 'decimal',
  integer: 'int32',
  int64: 'int64',
  date: 'date',
  datetime: 'date-time',
  uuid: 'uuid',
  email: 'email',
};

const kindNotes: Partial<Record<FieldKind, string>> = {
  date: 'Calendar date YYYY-MM-DD.',
  datetime: 'ISO 8601 timestamp.',
};

/** The note a field's kind adds to its description (dates, decimals). */
export function kindNote(spec: FieldSpec, mode: 'write' | 'served'): string | undefined {
  return spec.kind === 'decimal' ? decimalNote(spec, mode) : kindNotes[spec.kind];
}

/** A non-null value of a field, as validated on write (and served, for every kind but decimal). */
export function kindSchema(spec: FieldSpec): z.ZodType {
  // valueSchema() checks enum and range with a refinement and a pipe, which the generator cannot render: the
  // same constraints are spelled out here from the declaration.
  if (spec.enum) return z.enum(spec.enum as [string, ...string[]]);
  if (spec.kind === 'decimal') return decimalInputSchema(spec);
  if (spec.range && (spec.kind === 'number' || spec.kind === 'integer')) {
    const [min, max] = spec.range;
    const base = spec.kind === 'integer' ? z.number().int() : z.number();
    const bounded = base.min(min).max(max);
    return spec.kind === 'integer' ? bounded.openapi({ format: 'int32' }) : bounded;
  }
  const format = formats[spec.kind];
  const schema = valueSchema(spec);
  // A field that refuses a blank value ("", whitespace only): the kernel's rule, as a pattern.
  const keywords = { ...(format ? { format } : {}), ...(refusesBlank(spec) ? { pattern: NON_BLANK.source } : {}), ...(spec.example !== undefined ? { example: spec.example } : {}) };
  return Object.keys(keywords).length > 0 ? schema.openapi(keywords) : schema;
}

/** A served value of a kind that has no FieldSpec (read-only fields): its type, format and enum only. */
function servedKindSchema(kind: RecordFieldInfo['kind'], values?: readonly string[]): z.ZodType {
  if (values) return z.enum(values as [string, ...string[]]);
  switch (kind) {
    case 'integer':
    case 'int64':
      return z.number().int().openapi({ format: formats[kind]! });
    case 'number':
      return z.number();
    case 'boolean':
      return z.boolean();
    case 'json':
      return z.record(z.string(), z.unknown());
    case 'string[]':
      return z.array(z.string());
    case 'children':
      throw new Error('openapi: child collections are described by childRecordSchema');
    default: {
      const format = formats[kind as FieldKind];
      return format ? z.string().openapi({ format }) : z.string();
    }
  }
}

/** The schema with the given sentences (those present) as its description; field markers become wire names. */
export function describe(schema: z.ZodType, ...parts: (string | undefined)[]): z.ZodType {
  const description = docText(parts.filter(Boolean).join(' '));
  return description ? schema.openapi({ description }) : schema;
}

export const uuid = () => z.string().openapi({ format: 'uuid' });
export const timestamp = () => z.string().openapi({ format: 'date-time' });

/** The sentence naming what a reference field must point at. */
export function referenceNote(spec: FieldSpec): string | undefined {
  if (!spec.references) return undefined;
  const { label } = spec.references;
  return `Must be the id of ${/^[aeiou]/i.test(label) ? 'an' : 'a'} ${label}.`;
}

/** A served field that has a FieldSpec (own fields, child entry fields). */
function servedField(spec: FieldSpec, nullable: boolean): z.ZodType {
  const schema = spec.kind === 'decimal' && !spec.enum ? decimalServedSchema(spec) : kindSchema(spec);
  return describe(nullable ? schema.nullable() : schema, spec.description, kindNote(spec, 'served'), referenceNote(spec));
}

/** A read-only field as served (never accepted): its kind (decimals with their scale), enum, readOnly: true (which says it). */
export function readOnlySchema(spec: ReadOnlyField, nullable: boolean): z.ZodType {
  const decimal = spec.kind === 'decimal' && !spec.enum;
  const schema = decimal ? decimalServedSchema({ kind: 'decimal', scale: spec.scale ?? 2, create: 'not_accepted', update: 'not_accepted' }) : servedKindSchema(spec.kind, spec.enum);
  const note = decimal ? undefined : kindNotes[spec.kind as FieldKind];
  return describe(nullable ? schema.nullable() : schema, spec.description, note).openapi({ readOnly: true });
}

/** Served field schemas, for standard records and for records that are not standard resources (e.g. a contact linkage). */
export const served = {
  id: () => uuid().openapi({ description: 'Server-generated UUID v7.' }),
  uuid,
  timestamp,
  field: (spec: FieldSpec, nullable = false) => servedField(spec, nullable),
};
