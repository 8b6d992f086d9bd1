import { Decimal } from 'decimal.js';
import { z } from 'zod';
import { parseCalendarDate, parseTimestamp } from './dates.ts';
import { isUuid } from './ids.ts';
import type { ModelName } from './model-delegates.ts';

// Field kinds shared by every resource: how a value is validated at the boundary, stored, serialised to the
// REST wire format, typed in GraphQL and described in OpenAPI. A resource declares its fields with these.

export type FieldKind = 'string' | 'text' | 'integer' | 'int64' | 'number' | 'decimal' | 'boolean' | 'date' | 'datetime' | 'uuid' | 'email' | 'url' | 'string[]';

export interface FieldSpec {
  kind: FieldKind;
  create: 'required' | 'optional' | 'not_accepted';
  /** 'immutable': accepted on update only with the current value (a no-op); any other value is refused. */
  update: 'optional' | 'not_accepted' | 'immutable';
  /** null is accepted on write (clears the value); every optional field is nullable unless it says otherwise. */
  nullable?: boolean;
  max?: number;
  /** The value must be one of these (string kinds). */
  enum?: readonly string[];
  /** Inclusive bounds of a numeric value. */
  range?: readonly [number, number];
  /** Decimal places of a decimal value: accepted on input at most, always written on output (default 2). */
  scale?: number;
  /**
   * The value must be the id of a (live) record of this Prisma model in the same tenant: checked by the kernel for a
   * resource's own fields, by the collection's compute for a child entry's. Also gives a relation (relation.ts).
   */
  references?: { model: ModelName; live?: boolean; label: string };
  /**
   * The stored value is never null although the field may be omitted on create (a NOT NULL column that the server
   * or the database fills): served non-null.
   */
  alwaysSet?: boolean;
  /**
   * The value is unique among the tenant's (live, with soft delete) records, compared case-insensitively. Checked
   * before the write with the other field errors (422 "has already been taken") and settled under concurrency by
   * the unique index `<table>_account_<field>_ci_live` on (account_id, lower(<field>)) that the migration must
   * create (test/rest/declared-sql.test.ts checks it exists).
   */
  unique?: 'case_insensitive';
  /**
   * A text value is stored exactly as sent: not trimmed (a note's body). A blank value is still refused where the
   * field refuses blanks (refusesBlank).
   */
  verbatim?: boolean;
  /** What the value is, for readers of both APIs; `{wire_name}` markers name other fields (api-text.ts). */
  description?: string;
  /** How a write treats the field (defaults, what it must match, when it is required): on write bodies and inputs only. */
  writeRule?: string;
  /**
   * A value the field accepts, for a field whose text follows a grammar no schema keyword states (a recurrence
   * rule): the OpenAPI document shows it as the property's example, and tools that build valid requests from the
   * document (the fuzz, the tenant sweep) send it.
   */
  example?: string;
}

const messages = {
  string: 'must be a string',
  integer: 'must be an integer',
  number: 'must be a number',
  boolean: 'must be true or false',
};

/**
 * What a blank string is not: a character other than whitespace. String.prototype.trim removes exactly what `\s`
 * matches (ECMAScript's WhiteSpace and LineTerminator), so a trimmed value is '' if and only if the value does not
 * match this pattern (the OpenAPI document states it as the JSON Schema `pattern` of the fields that refuse blanks).
 */
export const NON_BLANK = /\S/;

/**
 * Whether a written value of the field is refused when blank (empty or whitespace only, "can't be blank"): a field
 * required on create of a text kind whose blank value passes the kind's own check (record-validation.ts checks it
 * on create and update, for a record's fields and a child entry's). An enum, email, uuid or date refuses a blank
 * value by its own rule.
 */
export function refusesBlank(field: FieldSpec): boolean {
  return field.create === 'required' && !field.enum && (field.kind === 'string' || field.kind === 'text' || field.kind === 'url');
}

/** The default bounds and places of a decimal field (FieldSpec range and scale). */
const DEFAULT_DECIMAL_RANGE: readonly [number, number] = [0, 9_999_999_999];

/** Bounds and places of a decimal field, as decimalSchema() checks them. */
export function decimalRules(field: Pick<FieldSpec, 'range' | 'scale'>): { scale: number; min: number; max: number } {
  const [min, max] = field.range ?? DEFAULT_DECIMAL_RANGE;
  return { scale: field.scale ?? 2, min, max };
}

/**
 * A decimal string of at most 10 integer digits and `scale` places. decimalSchema() takes it `signed` and refuses a
 * value out of the field's range with its own message; the OpenAPI document states it unsigned for a field whose
 * range starts at 0 or above (no negative value is in range there).
 */
export function decimalPattern(scale: number, signed = true): RegExp {
  return new RegExp(`^${signed ? '-?' : ''}\\d{1,10}${scale > 0 ? `(\\.\\d{1,${scale}})?` : ''}$`);
}

/** Entries of a string list unless the field says otherwise, and characters of each entry. */
const LIST_ENTRIES = 100;
export const LIST_ENTRY_CHARACTERS = 255;

/**
 * The most characters a value of a text kind holds (the field's max, or its kind's default), the most entries of a
 * string list; undefined for the other kinds, whose values are short by their kind.
 */
export function maxLength(field: Pick<FieldSpec, 'kind' | 'max'>): number | undefined {
  switch (field.kind) {
    case 'string':
    case 'email':
      return field.max ?? 255;
    case 'text':
      return field.max ?? 20_000;
    case 'url':
      return field.max ?? 2048;
    case 'string[]':
      return field.max ?? LIST_ENTRIES;
    default:
      return undefined;
  }
}

/** The schema of each declared field, built once: a write checked each value with a schema built for it (bench/README.md, Recurring generation: 150-300 µs per job). */
const schemas = new WeakMap<FieldSpec, z.ZodType>();

/** zod schema of a non-null value of the field (strings are trimmed unless verbatim; blank required strings are refused). */
export function valueSchema(field: FieldSpec): z.ZodType {
  let schema = schemas.get(field);
  if (!schema) {
    schema = buildValueSchema(field);
    schemas.set(field, schema);
  }
  return schema;
}

function buildValueSchema(field: FieldSpec): z.ZodType {
  if (field.kind === 'string[]') {
    // A list of short strings (webhook topics): each trimmed, at most `max` entries (default 100) of 255 characters.
    const entries = maxLength(field)!;
    return z.array(z.string({ error: messages.string }).trim().max(LIST_ENTRY_CHARACTERS, `has an entry that is too long (maximum is ${LIST_ENTRY_CHARACTERS} characters)`), { error: 'must be an array of strings' }).max(entries, `must have at most ${entries} entries`);
  }
  if (field.enum) {
    const allowed = field.enum;
    return z.string({ error: messages.string }).refine((v) => allowed.includes(v), `must be one of: ${allowed.join(', ')}`);
  }
  if (field.range && (field.kind === 'number' || field.kind === 'integer')) {
    const [min, max] = field.range;
    return baseSchema(field).pipe(z.number().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));
  }
  return baseSchema(field);
}

function baseSchema(field: FieldSpec): z.ZodType {
  if (field.kind === 'decimal') return decimalSchema(field);
  const str = (max: number) => (field.verbatim ? z.string({ error: messages.string }) : z.string({ error: messages.string }).trim()).max(max, `is too long (maximum is ${max} characters)`);
  switch (field.kind) {
    case 'string':
    case 'text':
    case 'url':
      return str(maxLength(field)!);
    case 'email':
      return str(maxLength(field)!).pipe(z.email({ error: 'is not a valid email address' }));
    case 'integer':
      return z.number({ error: messages.integer }).int(messages.integer).min(-2147483648).max(2147483647);
    case 'int64':
      return z.number({ error: messages.integer }).int(messages.integer).min(1, 'must be positive').max(Number.MAX_SAFE_INTEGER);
    case 'number':
      return z.number({ error: messages.number }).finite();
    case 'boolean':
      return z.boolean({ error: messages.boolean });
    case 'uuid':
      return z.string({ error: messages.string }).refine(isUuid, 'is not a valid UUID');
    case 'date':
      return z.string({ error: 'is not a valid date (YYYY-MM-DD)' }).refine((v) => parseCalendarDate(v) !== null, 'is not a valid date (YYYY-MM-DD)');
    case 'datetime':
      return z
        .string({ error: 'is not a valid ISO 8601 timestamp' })
        .refine((v) => parseTimestamp(v) !== null, 'is not a valid ISO 8601 timestamp')
        .transform((v) => parseTimestamp(v)!);
    case 'string[]':
      throw new Error('string lists are validated by valueSchema');
  }
}

/**
 * Money and quantities: a JSON number or, to avoid binary floating point on the client side, a decimal string
 * ("12.50"). The result is the canonical decimal string that is stored exactly (numeric column).
 */
function decimalSchema(field: FieldSpec): z.ZodType {
  const { scale, min, max } = decimalRules(field);
  const pattern = decimalPattern(scale);
  return z
    .union([z.number().finite().transform((n) => String(n)), z.string().trim()], { error: 'must be a decimal number or a decimal string' })
    .refine((v) => pattern.test(v), `must be a decimal with at most ${scale} decimal places`)
    .refine((v) => !pattern.test(v) || (Number(v) >= min && Number(v) <= max), `must be between ${min} and ${max}`);
}

/** Value as stored through Prisma. */
/** Validated values by field name as their columns store them; write-only fields (inputs of a hook) are left out. */
export function storageValues(fields: Readonly<Record<string, FieldSpec>>, values: Record<string, unknown>, writeOnly: readonly string[] = []): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  const skipped = new Set(writeOnly);
  for (const [key, value] of Object.entries(values)) {
    if (skipped.has(key)) continue;
    const field = fields[key];
    data[key] = field ? toStorage(field, value) : value;
  }
  return data;
}

export function toStorage(field: FieldSpec, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  if (field.kind === 'int64') return BigInt(value as number);
  if (field.kind === 'date') return new Date(`${value as string}T00:00:00Z`);
  return value;
}

/** `^-?(0|[1-9]\d*)\.\d{scale}$` per scale: a decimal string already in the form toFixed(scale) writes. */
const canonicalDecimals = new Map<number, RegExp>();

/**
 * A decimal as written on the wire: toFixed(scale) (half up). PostgreSQL gives a numeric column as a string with
 * exactly the column's scale, which the declarations match, so such a string is returned as it is, without a
 * decimal.js round trip (the dispatch board formats ~20,000 of them per request). Any other value (a Prisma
 * Decimal, a number, another scale, leading zeros, a negative zero, which toFixed writes without its sign) goes
 * through decimal.js.
 */
export function decimalToWire(value: unknown, scale: number): string {
  if (typeof value === 'string') {
    let canonical = canonicalDecimals.get(scale);
    if (!canonical) canonicalDecimals.set(scale, (canonical = new RegExp(`^-?(?:0|[1-9]\\d*)${scale > 0 ? `\\.\\d{${scale}}` : ''}$`)));
    if (canonical.test(value) && (value.charCodeAt(0) !== 45 /* - */ || /[1-9]/.test(value))) return value;
  }
  return new Decimal(value as Decimal.Value).toFixed(scale);
}

/** Value as written on the REST wire (and given to GraphQL). */
export function toWire(kind: FieldKind | 'json' | 'string[]' | 'children', value: unknown, scale = 2): unknown {
  if (value === null || value === undefined) return null;
  if (kind === 'decimal') return decimalToWire(value, scale);
  if (kind === 'date' && typeof value === 'string') return value.slice(0, 10);
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Date) return kind === 'date' ? value.toISOString().slice(0, 10) : value.toISOString();
  return value;
}
