import { NON_BLANK } from '../../kernel/fields.ts';
import { bodyKeyOf, outputFields, serves, valueFieldOf, type ResourceDefinition } from '../../kernel/resource.ts';
import { childCreateSchema, childUpdateSchema } from './child-schemas.ts';
import { kindSchema } from './field-schemas.ts';
import { customFieldsSchema, labelsSchema } from './convention-schemas.ts';
import { docText } from './doc-text.ts';
import { memberKeywords, objectKeywords, requiredOnCreate, rulesNote, rulesOfResource } from './body-rules.ts';
import { bodyObject, fieldHomes, immutableFields, notAccepted, sameAs, writeShape, type FieldNotes } from './write-fields.ts';
import { z } from './zod.ts';

// A resource's create and update bodies (the record under its body key: bodyKeyOf, the name unless declared): its
// fields with their create or update rules, the conventions and the child collections.

/**
 * Each child collection of the resource as a body member: new entries on create, a snapshot on update. A
 * collection the resource refuses empty (body-rules.ts) has at least one entry, and is required on create when
 * the resource refuses it missing.
 */
function childrenBody(def: ResourceDefinition, mode: 'create' | 'update'): Record<string, z.ZodType> {
  const shape: Record<string, z.ZodType> = {};
  const rules = rulesOfResource(def.name);
  for (const [name, collection] of Object.entries(def.children ?? {})) {
    const valueField = valueFieldOf(collection);
    // A list of values (valueField) is written as the values alone; the other collections as entries.
    const entry = valueField ? kindSchema(valueField.spec) : mode === 'create' ? childCreateSchema(def, collection) : childUpdateSchema(def, collection);
    // On update the collection's own write rule (when declared) says how its snapshot works; the rest is common.
    const snapshot = valueField
      ? 'A snapshot replace: the list given is the new list, each value once. '
      : 'A snapshot replace: entries with id update that entry, entries without id are created, existing entries whose id is absent are removed. ';
    const rule =
      mode === 'create'
        ? 'Omitted: no entries (unless a hook supplies a default).'
        : `${collection.writeRule ? '' : snapshot}The order given is the new order; supplying the key changes the ETag even when nothing else changes.`;
    const keywords = memberKeywords(rules, name);
    const list = z.array(entry).max(200);
    const bounded = keywords ? list.openapi(keywords) : list;
    const required = mode === 'create' && requiredOnCreate(rules, name);
    const count = keywords ? 'Not null; 1 to 200 entries.' : 'Not null; at most 200 entries.';
    const member: z.ZodType = required ? bounded : bounded.optional();
    shape[name] = member.openapi({ description: [docText(collection.description), docText(collection.writeRule), required ? undefined : rule, count].filter(Boolean).join(' ') });
  }
  return shape;
}

/**
 * What a body says about a field beyond its spec: the sentence a write-only field carries and whether it is marked
 * writeOnly (it is, unless a read-only field of the same name serves it: contact linkable_id is accepted on create
 * and served), and the keywords of a rule the resource enforces in its own code (body-rules.ts).
 */
function fieldNotes(def: ResourceDefinition): FieldNotes {
  const writeOnly = new Set(def.writeOnly ?? []);
  const rules = rulesOfResource(def.name);
  return (name) => {
    const keywords = memberKeywords(rules, name);
    const note = !writeOnly.has(name)
      ? undefined
      : def.readOnly?.[name]
        ? { text: `Write-only: consumed when written, not stored as sent; the record's ${name} is read-only (${docText(def.readOnly[name].description ?? '').replace(/\.$/, '')}).` }
        : { text: 'Write-only: consumed when written, never stored or served.', writeOnly: true };
    return note || keywords ? { ...note, ...(keywords ? { keywords } : {}) } : undefined;
  };
}

/**
 * The rules between a body's members (body-rules.ts): the sentence its description adds (with a leading space, or
 * empty) and the body object with their keywords.
 */
function rulesBetween(def: ResourceDefinition, shape: Record<string, z.ZodType>): { note: string; apply: (body: z.ZodObject) => z.ZodObject } {
  const rules = rulesOfResource(def.name);
  const members = Object.keys(shape);
  const keywords = objectKeywords(rules, members);
  const note = rulesNote(rules, members);
  return { note: note ? ` ${note}` : '', apply: (body) => (keywords ? body.openapi(keywords) : body) };
}

/** The component name of a resource's create body, whose fields its update body and overrides refer to. */
export const createBodyName = (def: ResourceDefinition) => `${def.className}Create`;

/** Where the bodies of the resource find its fields described (the record's component is named after the class). */
const homes = (def: ResourceDefinition) => fieldHomes(def.className, createBodyName(def), outputFields(def), def.readOnly, fieldNotes(def));

/** The create body's record: every field with its create rule, plus the conventions and child collections. */
export function createSchema(def: ResourceDefinition): z.ZodObject {
  const shape = writeShape(def.fields, 'create', fieldNotes(def), homes(def).create);
  if (def.conventions.number) {
    // checkNumber (src/kernel/record-validation.ts): a blank or longer number is refused.
    shape.number = z
      .string()
      .min(1)
      .max(64)
      .regex(NON_BLANK)
      .optional()
      .openapi({ description: 'Omitted: the next in sequence; given: kept, unique in the account.' });
  }
  if (def.conventions.labels) shape.labels = labelsSchema(def, 'create').optional();
  if (def.conventions.customFields) shape.custom_fields = customFieldsSchema(def, 'create').optional();
  Object.assign(shape, childrenBody(def, 'create'));
  const between = rulesBetween(def, shape);
  return between.apply(bodyObject(shape, `${def.className} create body (under the key "${bodyKeyOf(def)}").${between.note}`, notAccepted(def.fields, 'create', def.conventions)));
}

/** The update body's record: every field is optional; conventions with their update semantics. */
export function updateSchema(def: ResourceDefinition): z.ZodObject {
  const shape = writeShape(def.fields, 'update', fieldNotes(def), homes(def).update);
  if (def.conventions.number) {
    shape.number = z
      .string()
      .optional()
      .openapi({ description: 'Only the current value (a no-op); another gives 422 number.immutable.' });
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
  const between = rulesBetween(def, shape);
  return between.apply(
    bodyObject(shape, `${def.className} update body (under the key "${bodyKeyOf(def)}").${between.note}`, notAccepted(def.fields, 'update', def.conventions), immutableFields(def.fields)),
  );
}

/**
 * The create body's members, each optional, as overrides of what an action derives (the customer of a lead
 * conversion): references to where the create body's members are described; without the members the action does
 * not take (ActionBody `except`).
 */
export function overridesSchema(def: ResourceDefinition, description: string | undefined, except: readonly string[] = []): z.ZodObject {
  const home = homes(def).update;
  const create = createSchema(def).shape;
  // A resource created only by actions (a receipt) has no create body to refer to: its fields are described here.
  const inline = !serves(def, 'create');
  const shape = Object.fromEntries(
    Object.keys(create).filter((name) => !except.includes(name)).map((name) => {
      const spec = def.fields[name];
      return [name, (inline ? (create[name] as z.ZodType) : sameAs((spec && home(name, spec)) || createBodyName(def), name)).optional()];
    }),
  );
  return z.object(shape).strict().openapi({ description });
}
