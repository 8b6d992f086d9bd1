import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { customFieldTypes, relatedNames } from '../kernel/lookups.ts';
import { valueSchema, type FieldKind, type FieldSpec } from '../kernel/fields.ts';
import type { Operator, ValueType } from '../kernel/listing.ts';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../kernel/listing.ts';
import { roles } from '../kernel/permissions.ts';
import { outputFields, type RecordFieldInfo, type ResourceDefinition } from '../kernel/resource.ts';
import { allScopes } from '../kernel/scopes.ts';
import { supportedVersions } from '../kernel/versioning.ts';
import { lookupKinds, type LookupKind } from '../resources/lookups/lookup.service.ts';

// zod schemas for the OpenAPI document, derived from the resource declarations and the kernel's field kinds:
// the same valueSchema() that validates a field at the boundary describes it here. Every function builds new
// schema instances, so building the document twice gives the same result.

extendZodWithOpenApi(z);

/** OpenAPI `format` of a field kind (the zod validators of dates, ids and emails are refinements it cannot see). */
const formats: Partial<Record<FieldKind, string>> = {
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

/** A non-null value of a field kind, as validated on write and served on read. */
export function kindSchema(spec: FieldSpec): z.ZodType {
  const format = formats[spec.kind];
  const schema = valueSchema(spec);
  return format ? schema.openapi({ format }) : schema;
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

/** Whether null is accepted on write (it clears the value); mirrors ResourceService.prepare. */
function writeNullable(spec: FieldSpec): boolean {
  return spec.nullable !== false && spec.create !== 'required';
}

/** The record as served, field by field from outputFields(def). */
export function recordSchema(def: ResourceDefinition): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const info of outputFields(def)) {
    const spec = def.fields[info.name];
    let schema = spec ? kindSchema(spec) : conventionSchema(def, info);
    if (info.nullable) schema = schema.nullable();
    shape[info.name] = spec ? describe(schema, spec.description, kindNotes[spec.kind], referenceNote(spec)) : schema;
  }
  return z.object(shape).openapi({ description: def.description });
}

/** Fields not accepted in a create or update body (they answer "cannot be set on create|update"). */
export function notAccepted(def: ResourceDefinition, mode: 'create' | 'update'): string[] {
  const out = Object.entries(def.fields)
    .filter(([, spec]) => (mode === 'create' ? spec.create : spec.update) === 'not_accepted')
    .map(([name]) => name);
  if (def.conventions.status && mode === 'create') out.push('status');
  return out;
}

/** The create body's record: every field with its create rule, plus the conventions the resource has. */
export function createSchema(def: ResourceDefinition): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, spec] of Object.entries(def.fields)) {
    if (spec.create === 'not_accepted') continue;
    let schema = kindSchema(spec);
    if (writeNullable(spec)) schema = schema.nullable();
    schema = describe(schema, spec.description, kindNotes[spec.kind], referenceNote(spec), spec.create === 'required' ? 'Required.' : undefined);
    shape[name] = spec.create === 'required' ? schema : schema.optional();
  }
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
  const refused = notAccepted(def, 'create');
  return z
    .object(shape)
    .strict()
    .openapi({
      description: `${def.className} create body (under the key "${def.name}"). Unknown fields are refused.${refused.length ? ` Not accepted on create: ${refused.join(', ')}.` : ''}`,
      'x-not-accepted': refused,
    });
}

/** The update body's record: every field is optional; conventions with their update semantics. */
export function updateSchema(def: ResourceDefinition): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, spec] of Object.entries(def.fields)) {
    if (spec.update === 'not_accepted') continue;
    let schema = kindSchema(spec);
    if (writeNullable(spec)) schema = schema.nullable();
    shape[name] = describe(schema, spec.description, kindNotes[spec.kind], referenceNote(spec), writeNullable(spec) ? 'null clears the value.' : undefined).optional();
  }
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
  const refused = notAccepted(def, 'update');
  return z
    .object(shape)
    .strict()
    .openapi({
      description: `${def.className} update body (under the key "${def.name}"); omitted fields are unchanged. Unknown fields are refused.${refused.length ? ` Not accepted on update: ${refused.join(', ')}.` : ''}`,
      'x-not-accepted': refused,
    });
}

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
