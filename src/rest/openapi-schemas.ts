import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { customFieldTypes, relatedNames } from '../kernel/lookups.ts';
import { valueSchema, type FieldKind, type FieldSpec } from '../kernel/fields.ts';
import type { Operator, ValueType } from '../kernel/listing.ts';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../kernel/listing.ts';
import { roles } from '../kernel/permissions.ts';
import { resources } from '../domain.ts';
import { childOutputFields, outputFields, type ChildCollection, type ReadOnlyField, type RecordFieldInfo, type ResourceDefinition } from '../kernel/resource.ts';
import { allScopes } from '../kernel/scopes.ts';
import { supportedVersions } from '../kernel/versioning.ts';
import { lookupKinds, type LookupKind } from '../resources/lookups/lookup.service.ts';

// zod schemas for the OpenAPI document, derived from the resource declarations and the kernel's field kinds:
// the same valueSchema() that validates a field at the boundary describes it here. Every function builds new
// schema instances, so building the document twice gives the same result.

extendZodWithOpenApi(z);

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

/** Bounds and places of a decimal field, as decimalSchema() in src/kernel/fields.ts checks them. */
function decimalRules(spec: FieldSpec): { scale: number; min: number; max: number } {
  const [min, max] = spec.range ?? [0, 9_999_999_999];
  return { scale: spec.scale ?? 2, min, max };
}

/** A decimal as accepted on write: a decimal string or a JSON number, at most `scale` places, within its range. */
function decimalInputSchema(spec: FieldSpec): z.ZodType {
  const { scale, min, max } = decimalRules(spec);
  const fraction = scale > 0 ? `(\\.\\d{1,${scale}})?` : '';
  return z.union([
    z.string().regex(new RegExp(`^-?\\d{1,10}${fraction}$`)).openapi({ description: `Decimal string, e.g. "12.5".` }),
    z.number().min(min).max(max).openapi({ description: 'JSON number; its shortest decimal form must satisfy the same rules.' }),
  ]);
}

/** A decimal as served: always a string with exactly `scale` places (never a JSON number). */
function decimalServedSchema(spec: FieldSpec): z.ZodType {
  const { scale } = decimalRules(spec);
  return z.string().regex(new RegExp(scale > 0 ? `^-?\\d+\\.\\d{${scale}}$` : '^-?\\d+$')).openapi({ format: 'decimal' });
}

/** The sentence describing a decimal field's wire format, on write and as served. */
function decimalNote(spec: FieldSpec, mode: 'write' | 'served'): string {
  const { scale, min, max } = decimalRules(spec);
  const served = `served as a string with exactly ${scale} decimal places (e.g. "${(12.5).toFixed(scale)}")`;
  return mode === 'served'
    ? `Exact decimal ${served}.`
    : `Exact decimal, ${min} to ${max}, at most ${scale} decimal places: a decimal string ("12.5") or a JSON number; ${served}. Other values: 422 validation.failed.`;
}

/** The note a field's kind adds to its description (dates, decimals). */
function kindNote(spec: FieldSpec, mode: 'write' | 'served'): string | undefined {
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
  return format ? schema.openapi({ format }) : schema;
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

function describe(schema: z.ZodType, ...parts: (string | undefined)[]): z.ZodType {
  const description = parts.filter(Boolean).join(' ');
  return description ? schema.openapi({ description }) : schema;
}

const uuid = () => z.string().openapi({ format: 'uuid' });
const timestamp = () => z.string().openapi({ format: 'date-time' });

/** A value of custom_fields, by definition type. */
function customFieldValue(nullable: boolean): z.ZodType {
  const value = z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]);
  return (nullable ? value.nullable() : value).openapi({
    description:
      'text, select: string (select: one of the options); number: number; date: YYYY-MM-DD; checkbox: boolean; multiselect: array of options. Attachment fields are not set through the body.',
  });
}

function customFieldsSchema(def: ResourceDefinition, mode: 'record' | 'create' | 'update'): z.ZodType {
  const where = `GET /custom_field_definitions?related_name=${def.className}`;
  const notes = {
    record: `Keyed by custom field definition id (${where}).`,
    create: `Keyed by custom field definition id (${where}). Unknown ids or wrongly typed values give 422 validation.failed; required definitions must be given.`,
    update: `Merged into the stored values: ids absent from the payload are kept, an id set to null is cleared. Keys are custom field definition ids (${where}).`,
  }[mode];
  return z.record(z.string(), customFieldValue(mode !== 'record')).openapi({ description: notes });
}

function labelsSchema(def: ResourceDefinition, mode: 'record' | 'create' | 'update'): z.ZodType {
  const where = `display_name values of GET /labels?related_name=${def.className}`;
  const notes = {
    record: `Labels (${where}).`,
    create: `Each value must be one of the ${where}; an unknown label gives 422 validation.failed.`,
    update: `Replaces the whole list; [] clears all labels, omitting the key keeps them. Each value must be one of the ${where}.`,
  }[mode];
  return z.array(z.string()).openapi({ description: notes });
}

function conventionSchema(def: ResourceDefinition, info: RecordFieldInfo): z.ZodType {
  switch (info.name) {
    case 'id':
      return uuid().openapi({ description: 'Server-generated UUID v7.' });
    case 'created_at':
    case 'updated_at':
      return timestamp();
    case 'number':
      return z.string().openapi({ description: info.description });
    case 'status':
      return z.string().openapi({ description: `${(info.description ?? '').replace(/\.$/, '')} (GET /statuses?related_name=${def.className}).` });
    case 'labels':
      return labelsSchema(def, 'record');
    case 'custom_fields':
      return customFieldsSchema(def, 'record');
    default:
      throw new Error(`openapi: no schema for the field ${def.name}.${info.name} (kind ${info.kind})`);
  }
}

function referenceNote(spec: FieldSpec): string | undefined {
  return spec.references ? `Must be the id of a ${spec.references.label}.` : undefined;
}

/** Whether null is accepted on write (it clears the value); mirrors ResourceService.prepare and checkChildren. */
function writeNullable(spec: FieldSpec): boolean {
  return spec.nullable !== false && spec.create !== 'required';
}

/** A served field that has a FieldSpec (own fields, child entry fields). */
function servedField(spec: FieldSpec, nullable: boolean): z.ZodType {
  const schema = spec.kind === 'decimal' && !spec.enum ? decimalServedSchema(spec) : kindSchema(spec);
  return describe(nullable ? schema.nullable() : schema, spec.description, kindNote(spec, 'served'), referenceNote(spec));
}

/** The resources whose child collections store their entries in `model` (line items: jobs and estimates). */
function childOwners(model: string): ResourceDefinition[] {
  return resources.filter((def) => Object.values(def.children ?? {}).some((collection) => collection.model === model));
}

/**
 * Component name of a child collection's entry. An entry shape shared by several resources (same child model,
 * e.g. line items of jobs and estimates) is one component named after the model (Lineitem); otherwise the
 * class and the label: Contact + "phone number" -> ContactPhoneNumber, Job + "job assignment" -> JobAssignment.
 */
export function childSchemaName(def: ResourceDefinition, collection: ChildCollection): string {
  if (childOwners(collection.model).length > 1) return pascalWords(collection.model);
  const label = pascalWords(collection.label);
  return label.startsWith(def.className) ? label : `${def.className}${label}`;
}

/** Who owns entries of the collection, for descriptions: "Job or Estimate". */
function ownerNames(def: ResourceDefinition, collection: ChildCollection): string {
  const owners = childOwners(collection.model).map((owner) => owner.className);
  return owners.length > 1 ? `${owners.slice(0, -1).join(', ')} or ${owners.at(-1)}` : def.className;
}

const pascalWords = (s: string) => s.replace(/(^|[_\s])([a-z])/g, (_m, _sep, c: string) => c.toUpperCase()).replace(/[_\s]/g, '');

/** A read-only field as served (never accepted): its kind (decimals with their scale), enum, readOnly: true. */
function readOnlySchema(spec: ReadOnlyField, nullable: boolean): z.ZodType {
  const decimal = spec.kind === 'decimal' && !spec.enum;
  const schema = decimal ? decimalServedSchema({ kind: 'decimal', scale: spec.scale ?? 2, create: 'not_accepted', update: 'not_accepted' }) : servedKindSchema(spec.kind, spec.enum);
  const note = decimal ? `Exact decimal served as a string with exactly ${spec.scale ?? 2} decimal places.` : kindNotes[spec.kind as FieldKind];
  return describe(nullable ? schema.nullable() : schema, spec.description, note, 'Read-only: served, never accepted.').openapi({ readOnly: true });
}

/** One served entry of a child collection (childOutputFields), registered under childSchemaName. */
function childRecordSchema(def: ResourceDefinition, collection: ChildCollection): z.ZodType {
  const shape: Record<string, z.ZodType> = {};
  for (const info of childOutputFields(collection)) {
    const spec = collection.fields[info.name];
    const readOnly = collection.readOnly?.[info.name];
    if (readOnly) shape[info.name] = readOnlySchema(readOnly, info.nullable);
    else if (spec) shape[info.name] = servedField(spec, info.nullable);
    else shape[info.name] = uuid().openapi({ description: `Id of the ${collection.label}; send it back to keep or change the entry.` });
  }
  return z
    .object(shape)
    .openapi(childSchemaName(def, collection), { description: `One ${collection.label} of a ${ownerNames(def, collection)}.` });
}

/** The record as served, field by field from outputFields(def). */
export function recordSchema(def: ResourceDefinition): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  const writeOnly = new Set(def.writeOnly ?? []);
  for (const info of outputFields(def)) {
    const readOnly = def.readOnly?.[info.name];
    const spec = writeOnly.has(info.name) ? undefined : def.fields[info.name];
    if (readOnly) {
      shape[info.name] = readOnlySchema(readOnly, info.nullable);
    } else if (info.kind === 'children') {
      const collection = info.children!;
      shape[info.name] = z.array(childRecordSchema(def, collection)).openapi({ description: `The ${collection.label} entries, in the order last written.` });
    } else if (spec) {
      shape[info.name] = servedField(spec, info.nullable);
    } else {
      const schema = conventionSchema(def, info);
      shape[info.name] = info.nullable ? schema.nullable() : schema;
    }
  }
  return z.object(shape).openapi({ description: def.description });
}

/** Fields not accepted in a create or update body (they answer "cannot be set on create|update"). */
export function notAccepted(fields: Record<string, FieldSpec>, mode: 'create' | 'update', conventions: ResourceDefinition['conventions'] = {}): string[] {
  const out = Object.entries(fields)
    .filter(([, spec]) => (mode === 'create' ? spec.create : spec.update) === 'not_accepted')
    .map(([name]) => name);
  if (conventions.status && mode === 'create') out.push('status');
  return out;
}

/** Fields accepted on update only with their current value. */
export function immutableFields(fields: Record<string, FieldSpec>): string[] {
  return Object.entries(fields)
    .filter(([, spec]) => spec.update === 'immutable')
    .map(([name]) => name);
}

const immutableNote = 'Cannot be changed: accepted only with the current value (a no-op); any other value gives 422 validation.failed ("cannot be changed").';

/** What a body says about one of its fields beyond its spec: a sentence, and the writeOnly keyword. */
export type FieldNotes = (name: string) => { text: string; writeOnly?: boolean } | undefined;

/**
 * The writable fields of a body, each with its create or update rule: required fields are required on create,
 * not_accepted fields are left out (the body is strict, so sending them is refused), immutable fields are
 * accepted on update with the current value only. `notes` adds a sentence to a field (write-only fields).
 */
export function writeShape(fields: Record<string, FieldSpec>, mode: 'create' | 'update', notes: FieldNotes = () => undefined): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, spec] of Object.entries(fields)) {
    const rule = mode === 'create' ? spec.create : spec.update;
    if (rule === 'not_accepted') continue;
    let schema = kindSchema(spec);
    if (writeNullable(spec)) schema = schema.nullable();
    const required = mode === 'create' && rule === 'required';
    const clears = mode === 'update' && rule === 'optional' && writeNullable(spec) ? 'null clears the value.' : undefined;
    const note = notes(name);
    schema = describe(schema, spec.description, kindNote(spec, 'write'), referenceNote(spec), note?.text, required ? 'Required.' : clears, rule === 'immutable' ? immutableNote : undefined);
    if (rule === 'immutable') schema = schema.openapi({ 'x-immutable': true });
    if (note?.writeOnly) schema = schema.openapi({ writeOnly: true });
    shape[name] = required ? schema : schema.optional();
  }
  return shape;
}

/** A strict body object (unknown fields are refused) with its x-not-accepted and x-immutable lists. */
export function bodyObject(shape: Record<string, z.ZodType>, description: string, refused: string[], immutable: string[] = []): z.ZodObject {
  return z
    .object(shape)
    .strict()
    .openapi({
      description: `${description} Unknown fields are refused.${refused.length ? ` Not accepted: ${refused.join(', ')}.` : ''}${immutable.length ? ` Not changeable (current value only): ${immutable.join(', ')}.` : ''}`,
      'x-not-accepted': refused,
      ...(immutable.length ? { 'x-immutable': immutable } : {}),
    });
}

/** The sentence saying which served fields of an entry the server computes (they are in no body). */
function computedNote(collection: ChildCollection): string {
  const computed = Object.keys(collection.readOnly ?? {});
  return computed.length ? ` The server computes ${computed.join(', ')}: they are served, never accepted.` : '';
}

/** One entry of a child collection in a create body: its fields with their create rules, no id. */
function childCreateSchema(def: ResourceDefinition, collection: ChildCollection): z.ZodType {
  return bodyObject(writeShape(collection.fields, 'create'), `A new ${collection.label}.${computedNote(collection)}`, ['id']).openapi(`${childSchemaName(def, collection)}Create`);
}

/**
 * One entry of a child collection in an update body (a snapshot): with the id of an existing entry it updates
 * that entry (omitted fields are kept); without an id it is a new entry with the create rules.
 */
function childUpdateSchema(def: ResourceDefinition, collection: ChildCollection): z.ZodType {
  const existing: Record<string, z.ZodType> = { id: uuid().openapi({ description: `Id of an existing ${collection.label} of this ${ownerNames(def, collection)}; any other id gives 422 validation.failed.` }) };
  for (const [name, schema] of Object.entries(writeShape(collection.fields, 'update'))) existing[name] = schema;
  const kept = z.object(existing).strict().openapi({ description: `An existing ${collection.label}, kept and changed: omitted fields keep their values.` });
  const fresh = z.object(writeShape(collection.fields, 'create')).strict().openapi({ description: `A new ${collection.label} (no id).` });
  return z.union([kept, fresh]).openapi(`${childSchemaName(def, collection)}Update`, {
    description: `An entry of the ${collection.label} snapshot: with id it updates that entry, without id it creates one.${computedNote(collection)}`,
  });
}

function childrenBody(def: ResourceDefinition, mode: 'create' | 'update'): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, collection] of Object.entries(def.children ?? {})) {
    const entry = mode === 'create' ? childCreateSchema(def, collection) : childUpdateSchema(def, collection);
    const rule =
      mode === 'create'
        ? 'Omitted: no entries (unless a hook supplies a default).'
        : 'A snapshot replace: entries with id update that entry, entries without id are created, existing entries whose id is absent are removed; the order given is the new order. Omit the key to keep the list; supplying it changes the ETag even when nothing else changes.';
    shape[name] = z
      .array(entry)
      .max(200)
      .optional()
      .openapi({ description: [collection.description, rule, 'Not null; at most 200 entries.'].filter(Boolean).join(' ') });
  }
  return shape;
}

/**
 * The sentence a write-only field carries in a body, and whether it is marked writeOnly (it is, unless a
 * read-only field of the same name serves it: contact linkable_id is accepted on create and served).
 */
function writeOnlyNote(def: ResourceDefinition): FieldNotes {
  const writeOnly = new Set(def.writeOnly ?? []);
  return (name) => {
    if (!writeOnly.has(name)) return undefined;
    return def.readOnly?.[name]
      ? { text: `Write-only: consumed when written, not stored as sent; the record's ${name} is read-only (${(def.readOnly[name].description ?? '').replace(/\.$/, '')}).` }
      : { text: 'Write-only: consumed when written, never stored or served.', writeOnly: true };
  };
}

/** The create body's record: every field with its create rule, plus the conventions and child collections. */
export function createSchema(def: ResourceDefinition): z.ZodObject {
  const shape = writeShape(def.fields, 'create', writeOnlyNote(def));
  if (def.conventions.number) {
    shape.number = z
      .string()
      .min(1)
      .max(64)
      .optional()
      .openapi({ description: 'Optional. When omitted the server assigns the next sequential number; when given it is kept and must be unique in the account. Immutable after creation.' });
  }
  if (def.conventions.labels) shape.labels = labelsSchema(def, 'create').optional();
  if (def.conventions.customFields) shape.custom_fields = customFieldsSchema(def, 'create').optional();
  Object.assign(shape, childrenBody(def, 'create'));
  return bodyObject(shape, `${def.className} create body (under the key "${def.name}").`, notAccepted(def.fields, 'create', def.conventions));
}

/** The update body's record: every field is optional; conventions with their update semantics. */
export function updateSchema(def: ResourceDefinition): z.ZodObject {
  const shape = writeShape(def.fields, 'update', writeOnlyNote(def));
  if (def.conventions.number) {
    shape.number = z
      .string()
      .optional()
      .openapi({ description: 'Not changeable: the current value is accepted as a no-op, any other value gives 422 number.immutable.' });
  }
  if (def.conventions.status) {
    shape.status = z
      .string()
      .optional()
      .openapi({
        description: `display_name of a live ${def.className} status (GET /statuses?related_name=${def.className}), case-sensitive; any other value gives 422 status.transition_invalid naming it.`,
      });
  }
  if (def.conventions.labels) shape.labels = labelsSchema(def, 'update').optional();
  if (def.conventions.customFields) shape.custom_fields = customFieldsSchema(def, 'update').optional();
  Object.assign(shape, childrenBody(def, 'update'));
  return bodyObject(
    shape,
    `${def.className} update body (under the key "${def.name}"); omitted fields are unchanged.`,
    notAccepted(def.fields, 'update', def.conventions),
    immutableFields(def.fields),
  );
}

/** Served field schemas for records that are not standard resources (e.g. a contact linkage). */
export const served = {
  id: () => uuid().openapi({ description: 'Server-generated UUID v7.' }),
  uuid,
  timestamp,
  field: (spec: FieldSpec, nullable = false) => servedField(spec, nullable),
};

// ---- list parameters ----

function filterValueSchema(type: ValueType): z.ZodType {
  switch (type) {
    case 'string':
      return z.string().max(500);
    case 'uuid':
      return uuid();
    case 'datetime':
      return timestamp();
    case 'integer':
      return z.number().int();
    case 'boolean':
      return z.boolean();
  }
}

function filterNote(field: string, op: Operator, type: ValueType): string {
  switch (op) {
    case 'eq':
      return `${field} equals the value`;
    case 'in':
      return `${field} is one of the comma-separated values (1 to 100, each a ${type})`;
    case 'gt':
      return `${field} is greater than the value`;
    case 'gte':
      return `${field} is greater than or equal to the value`;
    case 'lt':
      return `${field} is less than the value`;
    case 'lte':
      return `${field} is less than or equal to the value`;
  }
}

/** Query parameter name of a filter operator: `field` for equality, `field[op]` otherwise. */
export function filterParameterName(field: string, op: Operator): string {
  return op === 'eq' ? field : `${field}[${op}]`;
}

/** The sort values a list accepts: each sortable field, also with the - prefix. */
export function sortValues(def: ResourceDefinition): string[] {
  return Object.keys(def.list.sorts).flatMap((name) => [name, `-${name}`]);
}

/** Every query parameter of the resource's list, from def.list and the kernel's list rules. */
export function listQuerySchema(def: ResourceDefinition): z.ZodObject {
  const shape: Record<string, z.ZodType> = {
    cursor: z
      .string()
      .optional()
      .openapi({
        param: {
          description:
            'Opaque, HMAC-signed continuation cursor from the Link header of the previous page. Omit on the first page; pass back verbatim. Bound to the filters, q and custom_fields of the first request (changing them: 400 cursor.invalid_filters); valid for 24 hours (400 cursor.expired); tampered or from a retired signing key: 400 cursor.invalid.',
        },
      }),
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_LIMIT)
      .default(DEFAULT_LIMIT)
      .optional()
      .openapi({ param: { description: `Page size, 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT}). Above ${MAX_LIMIT}: 400 pagination.limit_too_large with max_limit.` } }),
  };
  const sorts = sortValues(def);
  if (sorts.length > 0) {
    shape.sort = z
      .enum(sorts as [string, ...string[]])
      .default(def.list.defaultSort)
      .optional()
      .openapi({
        param: {
          description: `Exactly one field; prefix - for descending. Default ${def.list.defaultSort}. Honoured on the first page only: continuation pages keep the cursor's ordering. An unknown field or several fields: 400 sort.invalid.`,
        },
      });
  }
  if (def.list.searchable) {
    shape.q = z
      .string()
      .max(200)
      .optional()
      .openapi({ param: { description: `Free-text search over ${def.list.searchable}. Narrows the results; order follows sort, not relevance.` } });
  }
  for (const [field, filter] of Object.entries(def.list.filters)) {
    for (const op of filter.ops) {
      const base = filterValueSchema(filter.type);
      const schema = op === 'in' ? z.string() : base;
      shape[filterParameterName(field, op)] = schema.optional().openapi({
        param: { description: `Filter: ${filterNote(field, op, filter.type)}. An unparseable value: 400 filter.invalid.` },
      });
    }
  }
  if (def.conventions.customFields) {
    shape.custom_fields = z
      .record(z.string(), z.string())
      .optional()
      .openapi({
        param: {
          style: 'deepObject',
          explode: true,
          description: `custom_fields[<field_id>]=<value>, where <field_id> is a custom field definition id of ${def.className} (GET /custom_field_definitions?related_name=${def.className}). Several keys combine with AND and with the other filters, q, sort and cursor. Matching per field type: checkbox takes true or false; date takes YYYY-MM-DD; multiselect matches records whose selection contains the value; other types match the exact string. Attachment fields cannot be filtered. An unknown id or malformed value: 400 filter.invalid.`,
        },
      });
  }
  return z.object(shape).strict();
}

// ---- envelopes ----

export function singleEnvelope(record: z.ZodType): z.ZodObject {
  return z.object({ data: record });
}

export function listEnvelope(record: z.ZodType, note = 'true when another page follows; then the Link header holds its URL.'): z.ZodObject {
  return z.object({ data: z.array(record), has_more: z.boolean().openapi({ description: note }) });
}

// ---- problem+json ----

export const problemCodePattern = /^[a-z_]+(\.[a-z_]+)+$/;

export function problemSchema(): z.ZodObject {
  return z
    .object({
      type: z.string().openapi({ description: '{errors_url}/<code>' }),
      title: z.string().openapi({ description: 'Short fixed title of the code.' }),
      status: z.number().int().openapi({ description: 'HTTP status.' }),
      code: z.string().regex(problemCodePattern).openapi({ description: 'Stable machine code <domain>.<verb_or_state>; see x-error-codes at the top of this document.' }),
      detail: z.string().nullable().openapi({ description: 'Longer context; null when none.' }),
      instance: z.string().openapi({ description: 'Request path.' }),
      request_id: z.string().openapi({ description: 'Correlation id of the request (also the X-Request-Id header).' }),
      doc_url: z.string().openapi({ description: '{errors_url}/<code with dots and underscores turned to dashes>' }),
      errors: z
        .record(z.string(), z.array(z.string()))
        .optional()
        .openapi({ description: 'validation.failed: each field name (nested: custom_fields.<id>) mapped to its messages.' }),
      required_scope: z.string().optional().openapi({ description: 'auth.scope_missing: the scope the endpoint needs.' }),
      granted_scopes: z.array(z.string()).optional().openapi({ description: "auth.scope_missing: the key's scopes." }),
      max_limit: z.number().int().optional().openapi({ description: 'pagination.limit_too_large: the largest limit.' }),
      reason: z.string().optional().openapi({ description: 'account.deactivated: why, when known.' }),
    })
    .openapi({ description: 'RFC 9457 problem details, served as application/problem+json.' });
}

// ---- identity and lookups ----

export function meSchema(): z.ZodObject {
  return z
    .object({
      account: z.object({
        id: uuid(),
        name: z.string(),
        sandbox: z.boolean(),
        modules: z.object({ AddressRequired: z.enum(['Yes', 'No']), System: z.enum(['on', 'off']) }),
      }),
      user: z.object({ id: z.number().int().openapi({ format: 'int64' }), name: z.string(), email: z.string().openapi({ format: 'email' }), role: z.enum(roles) }),
      key: z.object({
        id: uuid(),
        scopes: z.array(z.enum(allScopes as [string, ...string[]])),
        expires_at: timestamp().nullable(),
        created_at: timestamp(),
      }),
      api_version: z.enum(supportedVersions).openapi({ description: 'The resolved API version (Fieldline-Version header, else the key\'s pinned version).' }),
    })
    .openapi({ description: 'The caller: account, user, key (id and granted scopes) and resolved api_version. Never the token, its hash or a prefix of it.' });
}

const lookupFieldSchemas: Record<string, () => z.ZodType> = {
  id: uuid,
  related_name: () => z.enum(relatedNames),
  display_name: () => z.string(),
  name: () => z.string(),
  field_type: () => z.enum(customFieldTypes),
  options: () => z.array(z.string()).openapi({ description: 'Choices of select and multiselect fields.' }),
  required: () => z.boolean(),
  position: () => z.number().int(),
  created_at: timestamp,
  updated_at: timestamp,
};

/** A lookup row, field by field from lookupKinds. */
export function lookupSchema(kind: LookupKind): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const field of lookupKinds[kind].fields) {
    const make = lookupFieldSchemas[field];
    if (!make) throw new Error(`openapi: no schema for the lookup field ${kind}.${field}`);
    shape[field] = make();
  }
  return z.object(shape);
}

export function lookupQuerySchema(): z.ZodObject {
  return z
    .object({
      related_name: z
        .enum(relatedNames)
        .optional()
        .openapi({ param: { description: 'Resource class whose rows to list; omitted: every class. Any other value or parameter: 400 filter.invalid.' } }),
    })
    .strict();
}
