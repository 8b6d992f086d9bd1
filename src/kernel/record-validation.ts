import { addError, NOT_PERMITTED, throwIfErrors, zodIssuesToErrors } from './body.ts';
import type { ChildEntries } from './child-collections.ts';
import type { RequestContext } from './context.ts';
import { mergeCustomFields } from './custom-fields.ts';
import { AppError, type FieldErrors } from './errors.ts';
import { NON_BLANK, refusesBlank, toStorage, toWire, valueSchema } from './fields.ts';
import { isUuid } from './ids.ts';
import { checkLabels } from './labels.ts';
import { customFieldDefinitions, liveLabels, liveStatuses } from './lookups.ts';
import { modelDelegate, type RecordRow } from './model-delegates.ts';
import { lockNumberSequence } from './numbering.ts';
import { own } from './own.ts';
import { lookupClassOf, valueFieldOf, type ChildCollection, type HookDeps, type ResourceDefinition } from './resource.ts';
import { checkUniqueFields } from './unique-fields.ts';
import type { TenantTx } from './tenancy.ts';

/** A record sent for create or update, as validated: what to store. */
export interface ValidatedRecord {
  /** Values to store (wire names), as the resource's beforeWrite hook left them. */
  values: Record<string, unknown>;
  children: ChildEntries;
}

export interface RecordWrite extends HookDeps {
  tx: TenantTx;
  ctx: RequestContext;
  mode: 'create' | 'update';
  /** The record under the body key, as sent. */
  input: Record<string, unknown>;
  /** The record before the change (update only). */
  existing: RecordRow | null;
  /** The time of the write (the service's clock). */
  now: Date;
}

/** Keys of the conventions (number, status ...) a resource may accept beside its declared fields. */
const conventionKeys = new Set(['number', 'status', 'labels', 'custom_fields']);

/**
 * Validates the record sent for create or update against the resource's declaration, its conventions and its
 * beforeWrite hook. Field errors are gathered and answered together (validation.failed); a few rules answer
 * their own code at once (number.immutable, status.transition_invalid).
 */
export async function validateRecord(def: ResourceDefinition, write: RecordWrite): Promise<ValidatedRecord> {
  const { tx, ctx, mode, input, existing } = write;
  const errors: FieldErrors = {};
  const { values, children } = checkFields(def, mode, input, existing, errors);
  await checkReferences(tx, def, values, errors);
  if (def.conventions.number && input.number !== undefined) await checkNumber(tx, def, mode, input.number, existing, values, errors);
  if (def.conventions.status && input.status !== undefined) {
    if (mode === 'create') addError(errors, 'status', 'cannot be set on create');
    else values.status = await checkStatus(tx, def, input.status);
  }
  if (def.conventions.labels && input.labels !== undefined) {
    const labels = checkLabels(input.labels, await liveLabels(tx, lookupClassOf(def)), lookupClassOf(def), errors);
    if (labels) values.labels = labels;
  }
  if (def.conventions.customFields) {
    // Required definitions hold on every write, custom_fields sent or not: a definition made required after
    // the record was written makes any later update name it until a value is given.
    const definitions = await customFieldDefinitions(tx, lookupClassOf(def));
    const existingValues = (existing?.custom_fields as Record<string, unknown> | undefined) ?? null;
    const merged = mergeCustomFields(input.custom_fields, definitions, existingValues, errors);
    if (mode === 'create' || input.custom_fields !== undefined) values.custom_fields = merged;
  }
  await checkUniqueFields(tx, def, values, existing, errors);
  await def.hooks?.beforeWrite?.({ tx, ctx, mode, input, values, children, existing, errors, resources: write.resources, settings: write.settings, topics: write.topics, now: write.now });
  throwIfErrors(errors);
  return { values, children };
}

/** The declared fields and child collections sent, each checked on its own (no database read). */
function checkFields(def: ResourceDefinition, mode: 'create' | 'update', input: Record<string, unknown>, existing: RecordRow | null, errors: FieldErrors): ValidatedRecord {
  const values: Record<string, unknown> = {};
  const children: ChildEntries = {};
  for (const [key, value] of Object.entries(input)) {
    const collection = own(def.children, key);
    if (collection) {
      children[key] = checkChildEntries(key, collection, value, mode, errors);
      continue;
    }
    const field = own(def.fields, key);
    if (!field) {
      if (conventionKeys.has(key) && (def.conventions as Record<string, boolean | undefined>)[key === 'custom_fields' ? 'customFields' : key]) continue;
      addError(errors, key, NOT_PERMITTED);
      continue;
    }
    const rule = mode === 'create' ? field.create : field.update;
    if (rule === 'not_accepted') {
      addError(errors, key, `cannot be set on ${mode}`);
      continue;
    }
    if (rule === 'immutable') {
      if (value !== toWire(field.kind, existing![key])) addError(errors, key, 'cannot be changed');
      continue;
    }
    if (value === null) {
      if (field.nullable === false || field.create === 'required') addError(errors, key, "can't be blank");
      else values[key] = null;
      continue;
    }
    const parsed = valueSchema(field).safeParse(value);
    if (!parsed.success) {
      Object.assign(errors, zodIssuesToErrors(parsed.error, key));
      continue;
    }
    // Strings are trimmed: a blank value is '' here (refusesBlank says which fields refuse it; the document states it).
    // A verbatim field is not trimmed: its blank value is tested as it is.
    if (typeof parsed.data === 'string' && (field.verbatim ? !NON_BLANK.test(parsed.data) : parsed.data === '') && refusesBlank(field)) {
      addError(errors, key, "can't be blank");
      continue;
    }
    values[key] = parsed.data;
  }
  if (mode === 'create') {
    for (const [key, field] of Object.entries(def.fields)) {
      if (field.create === 'required' && input[key] === undefined) addError(errors, key, 'is missing');
    }
  }
  return { values, children };
}

/** A child collection value: an array of entries with the collection's fields (and an id on update). */
function checkChildEntries(name: string, collection: ChildCollection, value: unknown, mode: 'create' | 'update', errors: FieldErrors) {
  if (!Array.isArray(value)) {
    addError(errors, name, 'must be an array');
    return undefined;
  }
  if (value.length > 200) addError(errors, name, 'has too many entries (maximum is 200)');
  const valueField = valueFieldOf(collection);
  if (valueField) {
    // A list of plain values (ids): each checked as the field and given once, kept as the entry holding it.
    const seen = new Set<string>();
    return value.map((raw, index) => {
      const at = `${name}.${index}`;
      const parsed = raw === null ? null : valueSchema(valueField.spec).safeParse(raw);
      if (parsed === null) addError(errors, at, "can't be blank");
      else if (!parsed.success) Object.assign(errors, zodIssuesToErrors(parsed.error, at));
      else if (seen.has(String(parsed.data).toLowerCase())) addError(errors, at, 'is given more than once');
      else {
        seen.add(String(parsed.data).toLowerCase());
        return { [valueField.name]: parsed.data };
      }
      return {};
    });
  }
  return value.map((entry, index) => {
    const at = `${name}.${index}`;
    const out: Record<string, unknown> = {};
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      addError(errors, at, 'must be an object');
      return out;
    }
    for (const [key, raw] of Object.entries(entry as Record<string, unknown>)) {
      if (key === 'id') {
        if (mode === 'create') addError(errors, `${at}.id`, 'cannot be set on create');
        else if (!isUuid(raw)) addError(errors, `${at}.id`, 'is not a valid UUID');
        else out.id = raw;
        continue;
      }
      const field = own(collection.fields, key);
      if (!field) {
        addError(errors, `${at}.${key}`, NOT_PERMITTED);
        continue;
      }
      if (raw === null) {
        if (field.create === 'required' || field.nullable === false) addError(errors, `${at}.${key}`, "can't be blank");
        else out[key] = null;
        continue;
      }
      const parsed = valueSchema(field).safeParse(raw);
      if (!parsed.success) Object.assign(errors, zodIssuesToErrors(parsed.error, `${at}.${key}`));
      else if (parsed.data === '' && refusesBlank(field)) addError(errors, `${at}.${key}`, "can't be blank");
      else out[key] = parsed.data;
    }
    for (const [key, field] of Object.entries(collection.fields)) {
      if (field.create === 'required' && out.id === undefined && (entry as Record<string, unknown>)[key] === undefined) addError(errors, `${at}.${key}`, 'is missing');
    }
    return out;
  });
}

/** References to other records: same tenant (the tenant client scopes the lookup) and live. */
async function checkReferences(tx: TenantTx, def: ResourceDefinition, values: Record<string, unknown>, errors: FieldErrors): Promise<void> {
  for (const [key, field] of Object.entries(def.fields)) {
    const ref = field.references;
    if (!ref || values[key] === undefined || values[key] === null || errors[key]) continue;
    const found = await modelDelegate(tx, ref.model).count({ where: { id: toStorage(field, values[key]), ...(ref.live ? { deleted_at: null } : {}) } });
    if (found === 0) addError(errors, key, `does not match any ${ref.label}`);
  }
}

/** A number given on create must be free; on update it may only be the record's own. */
async function checkNumber(
  tx: TenantTx,
  def: ResourceDefinition,
  mode: 'create' | 'update',
  number: unknown,
  existing: RecordRow | null,
  values: Record<string, unknown>,
  errors: FieldErrors,
): Promise<void> {
  if (mode === 'update') {
    // Compared as it would be stored (trimmed): sending the record's own number back is not a change.
    if ((typeof number === 'string' ? number.trim() : number) !== existing!.number) throw new AppError('number.immutable', `number cannot be changed once assigned (it is "${String(existing!.number)}")`);
  } else if (typeof number !== 'string' || !NON_BLANK.test(number) || number.length > 64) {
    addError(errors, 'number', 'must be a non-blank string of at most 64 characters');
  } else {
    // Queue with automatic numbering before checking that the value is free (see lockNumberSequence).
    await lockNumberSequence(tx, def.className);
    if ((await modelDelegate(tx, def.model).count({ where: { number: number.trim() } })) > 0) addError(errors, 'number', 'has already been taken');
    else values.number = number.trim();
  }
}

/** A status set on update must be a live status of the resource. */
async function checkStatus(tx: TenantTx, def: ResourceDefinition, status: unknown): Promise<string> {
  const statuses = await liveStatuses(tx, def.className);
  if (typeof status !== 'string' || !statuses.includes(status)) {
    throw new AppError('status.transition_invalid', `"${String(status)}" is not a configured ${def.className} status (configured: ${statuses.join(', ')})`);
  }
  return status;
}
