import { resources } from '../../domain.ts';
import { childOutputFields, type ChildCollection, type ResourceDefinition } from '../../kernel/resource.ts';
import { readOnlySchema, served, uuid } from './field-schemas.ts';
import { pascal } from './naming.ts';
import { bodyObject, fieldHomes, writeShape } from './write-fields.ts';
import { z } from './zod.ts';

// The entries of a child collection (contact phone numbers, job assignments, line items): served with an id,
// created without one, and updated as a snapshot of existing and new entries.

/** The resources whose child collections store their entries in `model` (line items: jobs and estimates). */
function childOwners(model: string): ResourceDefinition[] {
  return resources.filter((def) => Object.values(def.children ?? {}).some((collection) => collection.model === model));
}

/**
 * Component name of a child collection's entry. An entry shape shared by several resources (same child model,
 * e.g. line items of jobs and estimates) is one component named after the model (Lineitem); otherwise the
 * class and the label: Contact + "phone number" -> ContactPhoneNumber, Job + "job assignment" -> JobAssignment.
 */
function childSchemaName(def: ResourceDefinition, collection: ChildCollection): string {
  if (childOwners(collection.model).length > 1) return pascal(collection.model);
  const label = pascal(collection.label);
  return label.startsWith(def.className) ? label : `${def.className}${label}`;
}

/** Who owns entries of the collection, for descriptions: "Job or Estimate". */
function ownerNames(def: ResourceDefinition, collection: ChildCollection): string {
  const owners = childOwners(collection.model).map((owner) => owner.className);
  return owners.length > 1 ? `${owners.slice(0, -1).join(', ')} or ${owners.at(-1)}` : def.className;
}

/** One served entry of a child collection (childOutputFields), registered under childSchemaName. */
export function childRecordSchema(def: ResourceDefinition, collection: ChildCollection): z.ZodType {
  const shape: Record<string, z.ZodType> = {};
  for (const info of childOutputFields(collection)) {
    const spec = collection.fields[info.name];
    const readOnly = collection.readOnly?.[info.name];
    if (readOnly) shape[info.name] = readOnlySchema(readOnly, info.nullable);
    else if (spec) shape[info.name] = served.field(spec, info.nullable);
    else shape[info.name] = uuid().openapi({ description: `Id of the ${collection.label}; send it back to keep or change the entry.` });
  }
  return z
    .object(shape)
    .openapi(childSchemaName(def, collection), { description: `One ${collection.label} of a ${ownerNames(def, collection)}.` });
}

/** The sentence saying which served fields of an entry the server computes (they are in no body). */
function computedNote(collection: ChildCollection): string {
  const computed = Object.keys(collection.readOnly ?? {});
  return computed.length ? ` The server computes ${computed.join(', ')}: they are served, never accepted.` : '';
}

/** Component name of the create entry of a child collection. */
const createEntryName = (def: ResourceDefinition, collection: ChildCollection) => `${childSchemaName(def, collection)}Create`;

/** Where the entry bodies of a child collection find its fields described: the served entry, else the create entry. */
const homes = (def: ResourceDefinition, collection: ChildCollection) =>
  fieldHomes(childSchemaName(def, collection), createEntryName(def, collection), childOutputFields(collection), collection.readOnly);

/** One entry of a child collection in a create body: its fields with their create rules, no id. */
export function childCreateSchema(def: ResourceDefinition, collection: ChildCollection): z.ZodType {
  return bodyObject(writeShape(collection.fields, 'create', undefined, homes(def, collection).create), `A new ${collection.label}.${computedNote(collection)}`, ['id']).openapi(
    createEntryName(def, collection),
  );
}

/**
 * One entry of a child collection in an update body (a snapshot): with the id of an existing entry it updates
 * that entry (omitted fields are kept); without an id it is a new entry with the create rules.
 */
export function childUpdateSchema(def: ResourceDefinition, collection: ChildCollection): z.ZodType {
  const existing: Record<string, z.ZodType> = { id: uuid().openapi({ description: `Id of an existing ${collection.label} of this ${ownerNames(def, collection)}; any other id gives 422 validation.failed.` }) };
  for (const [name, schema] of Object.entries(writeShape(collection.fields, 'update', undefined, homes(def, collection).update))) existing[name] = schema;
  const kept = z.object(existing).strict().openapi({ description: `An existing ${collection.label}, kept and changed.` });
  return z.union([kept, childCreateSchema(def, collection)]).openapi(`${childSchemaName(def, collection)}Update`, {
    description: `An entry of the ${collection.label} snapshot: with id it updates that entry, without id it creates one.${computedNote(collection)}`,
  });
}
