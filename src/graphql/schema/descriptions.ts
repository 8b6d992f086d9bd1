import type { ActionDefinition } from '../../kernel/action.ts';
import { renderText, withArticle, writeDescription } from '../../kernel/api-text.ts';
import type { FieldSpec } from '../../kernel/fields.ts';
import { lookupClassOf, searchDescription, type ChildCollection, type RecordFieldInfo, type ResourceDefinition } from '../../kernel/resource.ts';
import { camelCase } from '../../kernel/naming.ts';

// Every description of the GraphQL schema that is not plain prose in place: the declarations' texts rendered for
// GraphQL readers (their `{wire_name}` markers become camelCase field names, src/kernel/api-text.ts), and the
// texts generated per resource (record types, inputs, lists, mutations, actions, relations). They speak GraphQL:
// fields and arguments by their GraphQL names, no HTTP methods, paths or headers. test/graphql/descriptions.test.ts
// checks the built schema: every type, field, argument, input field and enum value described, none of them in
// REST terms.

/** A declaration's text for GraphQL: markers become camelCase names. */
export function graphqlText(text: string): string;
export function graphqlText(text: string | undefined): string | undefined;
export function graphqlText(text: string | undefined): string | undefined {
  // Names are camelCased; the indexes and ids of a path ({lineitems.0.quantity}) stay as they are.
  return text === undefined ? undefined : renderText(text, (name) => (/^[a-z][a-z0-9_]*$/.test(name) ? camelCase(name) : name));
}

/** A written field on an input type: what it is, then how a write treats it (on an update, whether it may change). */
export function inputFieldText(spec: Pick<FieldSpec, 'description' | 'writeRule' | 'update'>, mode?: 'create' | 'update'): string | undefined {
  const immutable = mode === 'update' && spec.update === 'immutable' ? 'Cannot be changed: only the current value is accepted (a no-op).' : undefined;
  return graphqlText([writeDescription(spec), immutable].filter(Boolean).join(' ') || undefined);
}

/** A resource's name in prose: customer_item_price -> "customer item price". */
export const nounOf = (def: Pick<ResourceDefinition, 'name'>): string => def.name.replace(/_/g, ' ');
const pluralOf = (def: Pick<ResourceDefinition, 'plural'>): string => def.plural.replace(/_/g, ' ');

/** A served field of a record or child entry (the kernel gives every convention field its text). */
export function outputFieldText(info: RecordFieldInfo): string | undefined {
  if (info.children) return graphqlText(info.children.description ?? `The ${info.children.label} entries.`);
  return graphqlText(info.description);
}

/** The texts of one resource's types, queries and mutations. */
export function resourceTexts(def: ResourceDefinition) {
  const noun = nounOf(def);
  const plural = pluralOf(def);
  // A nested resource (notes) has no read scope: its records are read with their parent's.
  const read = def.nested ? `the read scope of the resource of the ${noun}'s parent (jobs:read for a ${noun} on a job)` : `${def.scope}:read`;
  const write = def.nested ? `${def.scope}:write and ${read}` : `${def.scope}:write`;
  const deleted = def.conventions.softDelete ? ' It is soft-deleted: no longer served, but kept in the database.' : '';
  return {
    type: graphqlText(def.description),
    etag: `Weak ETag of the ${noun} as read here, to pass as ifMatch to update${def.className} or delete${def.className}.`,
    payload: `The ${noun} as written, and its new ETag.`,
    payloadRecord: `The ${noun} as written.`,
    payloadEtag: `The new ETag of the ${noun}, to pass as ifMatch to the next update${def.className} or delete${def.className}.`,
    createInput: `The fields of a new ${noun}.`,
    updateInput: `Changes to ${withArticle(noun)}: the fields given are written, omitted fields keep their values, null clears a field.`,
    get: `One ${noun} by id; null with an error when there is none in the account. Needs ${read}.`,
    getId: `The id of the ${noun}.`,
    list: `${plural.charAt(0).toUpperCase()}${plural.slice(1)} of the account, a page at a time, filtered, searched and sorted by the arguments. Needs ${read}.`,
    create: `Creates ${withArticle(noun)}. Needs ${write}.`,
    createInputArg: `The fields of the new ${noun}.`,
    idempotencyKey: `One key per ${noun} you mean to create once (a UUID): 1 to 255 printable ASCII characters. A retry with the same key and input within 24 hours returns the same ${noun} instead of a second one; while the first runs, or with another input, the error idempotency_key.in_use. The same store as REST's Idempotency-Key (keys are per API key).`,
    update: `Changes ${withArticle(noun)}. Needs ${write}.`,
    updateId: `The id of the ${noun} to change.`,
    updateInputArg: 'The fields to change.',
    delete: `Deletes ${withArticle(noun)}.${deleted} Needs ${write}.`,
    deleteId: `The id of the ${noun} to delete.`,
    ifMatch: `The ETag of the ${noun} as last read (its etag field): the write is refused with precondition.failed when the ${noun} changed since, and with precondition.required when ifMatch is omitted.`,
  };
}

/** The convention fields and child collections of create and update inputs. */
export const inputTexts = {
  number: (mode: 'create' | 'update') =>
    mode === 'create'
      ? 'The number of the record, unique in the account; the next in sequence when omitted.'
      : 'The number never changes: only the current number is accepted (a no-op); any other value is refused with number.immutable.',
  status: (def: ResourceDefinition) =>
    `The new status: the displayName of a live ${def.className} status (case-sensitive); any other value is refused with status.transition_invalid.`,
  labels: (def: ResourceDefinition) => `The labels: displayName values of ${lookupClassOf(def)} labels. Replaces the whole list; [] clears it.`,
  customFields: (def: ResourceDefinition, mode: 'create' | 'update') =>
    mode === 'create'
      ? `Custom field values keyed by ${lookupClassOf(def)} custom field definition id; required definitions must be given.`
      : `Custom field values keyed by ${lookupClassOf(def)} custom field definition id, merged into the stored ones: keys left out are kept, a key set to null is cleared.`,
  children: (children: ChildCollection) => graphqlText(writeDescription({ description: children.description, writeRule: children.writeRule })) ?? `The ${children.label} entries.`,
};

/** The types of a child collection's entries (Lineitem, LineitemInput). */
export const childTexts = {
  type: (children: ChildCollection) => `One ${children.label}.`,
  input: (children: ChildCollection) => `One ${children.label}: with id it changes that entry, without id it adds one.`,
  inputId: (children: ChildCollection) => `The id of an existing ${children.label} to change; omit it to add a new one.`,
};

/** The list arguments of a resource (and of its connections). */
export const listTexts = {
  sortInput: (def: ResourceDefinition) => `An order of ${nounOf(def)} lists: a field and a direction.`,
  sortField: (def: ResourceDefinition) => `A field ${nounOf(def)} lists can be ordered by.`,
  sortBy: 'The field to order by.',
  sortDirection: 'Ascending (the default) or descending.',
  sortArg: (def: ResourceDefinition) =>
    `The order of the list; by default ${camelCase(def.list.defaultSort.replace(/^-/, ''))}, ${def.list.defaultSort.startsWith('-') ? 'descending' : 'ascending'}. Honoured on the first page only: a cursor keeps the order of its page.`,
  filterInput: (def: ResourceDefinition) => `Conditions on ${nounOf(def)} lists; all given conditions must hold.`,
  filterArg: 'Only the records that meet these conditions.',
  q: (def: ResourceDefinition) => `Free-text search over ${searchDescription(def) ?? 'the record'}.`,
  filter: (field: string, op: string) => {
    const name = camelCase(field);
    switch (op) {
      case 'eq':
        return `Only records whose ${name} equals this value.`;
      case 'in':
        return `Only records whose ${name} is one of these values.`;
      case 'gt':
        return `Only records whose ${name} is after (greater than) this value.`;
      case 'gte':
        return `Only records whose ${name} is at or after (at least) this value.`;
      case 'lt':
        return `Only records whose ${name} is before (less than) this value.`;
      case 'lte':
        return `Only records whose ${name} is at or before (at most) this value.`;
      default:
        return `Only records whose ${name} matches this value (${op}).`;
    }
  },
  customFields: 'Custom field conditions, all of which must hold: a checkbox takes true or false, a date YYYY-MM-DD, a multiselect matches when its selection contains the value, other types match the exact value.',
};

/** Values of enums made from fixed vocabularies: a sort field, a direction, a value of a declared vocabulary. */
export const enumTexts = {
  sortField: (field: string) => `Order by ${camelCase(field)}.`,
  ascending: 'Ascending: smallest, earliest or first in alphabetical order first.',
  descending: 'Descending: largest, latest or last in alphabetical order first.',
  /** A value of a declared vocabulary (linkable type, relationship type, role ...): what it means in prose. */
  value: (vocabulary: string, value: string) => `${vocabulary}: ${value.toLowerCase().replace(/_/g, ' ')}.`,
};

/** Relay connection texts, for connection types and their arguments. */
export const connectionTexts = {
  edges: (plural: string) => `The ${plural} of the page, each with its cursor.`,
  edge: (noun: string) => `One ${noun} of a page and its cursor.`,
  edgeNode: (noun: string) => `The ${noun}.`,
  edgeCursor: 'The cursor of this item: pass it as after to continue after it.',
  nodes: (plural: string) => `The ${plural} of the page (the nodes of edges, without cursors).`,
  pageInfo: 'Where the page is in the list, and the cursors to continue from.',
  totalCount: (plural: string) => `How many ${plural} there are in all, on every page.`,
  first: (max = 100, byDefault = 25) => `Read at most this many items forward, 1 to ${max} (default ${byDefault}).`,
  after: 'Read the items after this cursor (an endCursor or an edge cursor); omit it to start at the beginning.',
  hasNextPage: 'Whether there are items after this page.',
  hasPreviousPage: 'Whether there are items before this page (it was read with after).',
  startCursor: 'The cursor of the first item of the page; null when the page is empty.',
  endCursor: 'The cursor of the last item of the page, to pass as after for the next page; null when the page is empty.',
};

/** The texts of an action's field, arguments and payload. */
export function actionTexts(action: ActionDefinition, def: ResourceDefinition) {
  const noun = nounOf(def);
  const response = action.response;
  return {
    field: `${graphqlText(action.description)} Needs ${action.scopes.join(' and ')}.`,
    id: `The id of the ${noun}.`,
    param: (param: string) => `The id of the ${param.replace(/_id$/, '').replace(/_/g, ' ')} of this ${noun}.`,
    body: action.body ? graphqlText(action.body.description) : undefined,
    /** A query parameter of a GET action: what it is and its rules, as the declaration says them (it must say them). */
    parameter: (spec: Pick<FieldSpec, 'description'>) => graphqlText(spec.description),
    payload: `${graphqlText(response.description)} Each record carries its new ETag.`,
    payloadRecord: (key: string, resource: string) => `The ${resource.replace(/_/g, ' ')}${key === resource ? '' : ` (${key})`} as written, with its new ETag.`,
    shapePayload: (key: string) => `The ${key.replace(/_/g, ' ')} as written.`,
    idempotencyKey:
      'One key per operation you mean to run once (a UUID): 1 to 255 printable ASCII characters. A retry with the same key and arguments within 24 hours returns the same records instead of creating them again; while the first runs, or with other arguments, the error idempotency_key.in_use. The same store as REST\'s Idempotency-Key (keys are per API key).',
  };
}

/** A relation field: the declaration's text, then the scope it needs. */
export function relationText(description: string, needs: string | null): string {
  const text = graphqlText(description);
  return needs === null ? text : `${text} Needs ${needs}.`;
}

/** A field of a wire shape: its declared text, or the text of a common field. */
export function wireFieldText(shapeName: string, wire: string, description: string | undefined): string | undefined {
  if (description !== undefined) return graphqlText(description);
  const noun = shapeName.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  const common: Record<string, string> = {
    id: `The id of the ${noun}.`,
    created_at: `When the ${noun} was created.`,
    updated_at: `When the ${noun} was last changed.`,
  };
  return common[wire];
}
