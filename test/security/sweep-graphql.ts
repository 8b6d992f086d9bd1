import { getIntrospectionQuery } from 'graphql';
import type { Gql } from '../helpers/graphql.ts';
import { camel, garbageCursor, kindOfBase, kindOfDescription, normalise, pascal, pool, randomIdLike, randomMarker, setAt, snake, spread, type Catalog, type IdValue } from './sweep-kit.ts';
import { alternativeMembers, deref, type Model } from './sweep-openapi.ts';
import { pick, sharedKinds, type Check, type Side } from './sweep-rest.ts';

// The GraphQL half of the sweep, generated from introspection: every Query and Mutation field, every argument
// (and input object field, recursively) that names a record (type ID, or a name ending in Id: SafeInt user ids),
// every key of a JSON field keyed by ids (customFields) and every cursor. As over REST, A sends B's value and a
// random one in the same place, all other arguments being A's own valid values, and the answers must match.

export interface TypeRef {
  kind: string;
  name: string | null;
  ofType: TypeRef | null;
}
interface InputValue {
  name: string;
  description: string | null;
  type: TypeRef;
}
interface Field {
  name: string;
  description: string | null;
  args: InputValue[];
  type: TypeRef;
}
interface FullType {
  kind: string;
  name: string;
  description: string | null;
  fields: Field[] | null;
  inputFields: InputValue[] | null;
  enumValues: { name: string }[] | null;
  possibleTypes: { name: string }[] | null;
}

export interface Schema {
  types: Map<string, FullType>;
  query: FullType;
  mutation: FullType | undefined;
  subscription: FullType | undefined;
}

export async function introspect(gql: Gql): Promise<Schema> {
  const res = await gql(getIntrospectionQuery());
  if (res.status !== 200 || !res.body.data) throw new Error(`introspection: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
  const s = res.body.data.__schema;
  const types = new Map<string, FullType>(s.types.map((t: FullType) => [t.name, t]));
  return {
    types,
    query: types.get(s.queryType.name)!,
    mutation: s.mutationType ? types.get(s.mutationType.name) : undefined,
    subscription: s.subscriptionType ? types.get(s.subscriptionType.name) : undefined,
  };
}

export function named(t: TypeRef): TypeRef {
  return t.ofType ? named(t.ofType) : t;
}

export function typeString(t: TypeRef): string {
  if (t.kind === 'NON_NULL') return `${typeString(t.ofType!)}!`;
  if (t.kind === 'LIST') return `[${typeString(t.ofType!)}]`;
  return t.name!;
}

const isRequired = (t: TypeRef) => t.kind === 'NON_NULL';
/** The input object of a list's filter argument (CustomerFilter ...): its fields are conditions, each optional. */
const isFilter = (type: FullType) => type.kind === 'INPUT_OBJECT' && /Filter$/.test(type.name) && (type.inputFields ?? []).every((f) => !isRequired(f.type));
const isListType = (t: TypeRef): boolean => (t.kind === 'NON_NULL' ? isListType(t.ofType!) : t.kind === 'LIST');
const ID_NAME = /(^id|Id)$/;
/** Whether a value of this scalar under this name names a record: an ID, or an id-like name that is not a String (`taxId` is a tax number). */
const namesRecord = (typeName: string | null | undefined, name: string): boolean => typeName === 'ID' || (ID_NAME.test(name) && typeName !== 'String');

/** One place of one operation that names a record: a path through the arguments. */
export interface GqlPosition {
  root: 'query' | 'mutation';
  field: Field;
  /** [argName, inputField?, 0 (list entry)?, ...]. */
  path: (string | number)[];
  kind: string;
  /** The position is a key of a JSON object (customFields), not a value. */
  key?: boolean;
  /** Records of the kind restricted to this related_name (custom field definitions of Customer). */
  relatedName?: string;
  variant?: { field: string; value: string };
  childOf?: boolean;
  integer?: boolean;
  label: string;
}

export interface GqlSweep {
  positions: GqlPosition[];
  skipped: { label: string; reason: string }[];
  checks: Check[];
  /** Operations of the Query and Mutation types, and the ones without any id position. */
  fields: string[];
}

/** The record class a field is about: the nodes of a connection, the record of a payload, or its own name without a verb. */
export function recordClass(schema: Schema, field: Field): string | undefined {
  const ret = schema.types.get(named(field.type).name!);
  const nodes = ret?.fields?.find((f) => f.name === 'nodes');
  if (nodes) return named(nodes.type).name!;
  // The longest tail of the name that is an object type: its own name, or the name without its verb
  // (createCustomerItemPrice, convertLead, receivePurchaseOrder).
  const starts = [0, ...[...field.name.matchAll(/[A-Z]/g)].map((m) => m.index!)];
  const bare = starts.map((i) => pascal(field.name.slice(i))).find((name) => schema.types.get(name)?.kind === 'OBJECT');
  if (bare) return bare;
  return ret?.kind === 'OBJECT' ? ret.name : undefined;
}

export class GqlBuilder {
  private unique = 0;
  /** Kinds whose records belong to a resource class: the lookups, whose records carry related_name. */
  private readonly relatedKinds: Set<string>;

  constructor(
    readonly schema: Schema,
    readonly model: Model,
    readonly userKind: string,
  ) {
    this.relatedKinds = new Set(model.lists.filter((l) => deref(model.doc, model.doc.components.schemas[l.itemSchema])?.properties?.related_name).map((l) => l.kind));
  }

  private keyedKind(description: string | null): string | undefined {
    if (!description || !/keyed by .*\bid/i.test(description)) return undefined;
    return kindOfDescription(description, this.model.kinds);
  }

  byRelatedName(kind: string): boolean {
    return this.relatedKinds.has(kind);
  }

  /**
   * The record class an input is about: the object type its name ends with (ConvertLeadCustomerInput: Customer,
   * CreateCustomerItemPriceInput: CustomerItemPrice), else the record class of the field.
   */
  classOf(owner: FullType | undefined, field: Field): string | undefined {
    const base = owner?.name.replace(/Input$/, '') ?? '';
    const candidates = [...this.schema.types.values()].filter((t) => t.kind === 'OBJECT' && !t.name.startsWith('__') && base.endsWith(t.name) && kindOfBase(snake(t.name), this.model.kinds));
    const type = candidates.sort((x, y) => y.name.length - x.name.length)[0]?.name ?? recordClass(this.schema, field);
    // A record whose lookups are another class's (a recurring job carries the Job's custom fields): its REST twin says whose.
    const custom = type ? deref(this.model.doc, this.model.doc.components.schemas[type])?.properties?.custom_fields?.description : undefined;
    return /related_name=([A-Z][A-Za-z]*)/.exec(String(custom ?? ''))?.[1] ?? type;
  }

  /** The kind of an id-like input value; `owner` is the input type (or undefined for a field argument). */
  kindOf(name: string, scalar: string, owner: FullType | undefined, field: Field, description: string | null): { kind?: string; childOf?: boolean } {
    if (name === 'id') {
      if (!owner) {
        // Record and action fields say whose id they take ("The id of the webhook endpoint."): a field named for
        // what it returns (webhookEndpointDeliveries) takes the id of another record than the one it returns.
        const noun = /^The id of the ([a-z]+(?: [a-z]+)*?)(?: to [a-z]+)?\.$/.exec(description ?? '')?.[1];
        const described = noun ? kindOfBase(noun.replace(/ /g, '_'), this.model.kinds) : undefined;
        return { kind: described ?? kindOfBase(snake(recordClass(this.schema, field) ?? ''), this.model.kinds) };
      }
      const fromType = kindOfBase(snake(owner.name.replace(/Input$/, '')), this.model.kinds);
      if (fromType) return { kind: fromType, childOf: true };
      return { kind: kindOfDescription(`${description ?? ''} ${owner.description ?? ''}`, this.model.kinds) };
    }
    // A list of ids (assetIds) names records of the same kind as one id.
    const base = snake(name.replace(/Ids?$/, ''));
    const kind = kindOfBase(base, this.model.kinds) ?? kindOfDescription(description ?? '', this.model.kinds);
    if (kind) return { kind };
    if (scalar !== 'ID' && scalar !== 'String') return { kind: this.userKind };
    return {};
  }

  /** The record kinds of the types implementing the interface a field returns (Node), or none. */
  interfaceKinds(field: Field): string[] {
    const ret = this.schema.types.get(named(field.type).name!);
    if (ret?.kind !== 'INTERFACE') return [];
    return (ret.possibleTypes ?? []).map((p) => kindOfBase(snake(p.name), this.model.kinds)).filter((k): k is string => !!k);
  }

  /** The record kinds of the one union-typed field of the record a field is about (Note.notable), or none. */
  unionKinds(field: Field): string[] {
    const record = this.schema.types.get(recordClass(this.schema, field) ?? '');
    const unions = (record?.fields ?? []).map((f) => this.schema.types.get(named(f.type).name!)!).filter((t) => t.kind === 'UNION');
    if (unions.length !== 1) return [];
    return (unions[0].possibleTypes ?? []).map((p) => kindOfBase(snake(p.name), this.model.kinds)).filter((k): k is string => !!k);
  }

  /** Every id position under a field's arguments. */
  positions(root: 'query' | 'mutation', field: Field): GqlPosition[] {
    const out: GqlPosition[] = [];
    const label = (path: (string | number)[], extra = '') => `${root} ${field.name}(${path.join('.')})${extra}`;
    const visit = (value: InputValue, path: (string | number)[], owner: FullType | undefined, siblings: InputValue[], depth: number) => {
      const t = named(value.type);
      const p = isListType(value.type) ? [...path, 0] : path;
      if (t.kind === 'SCALAR') {
        const keyed = t.name === 'JSON' ? this.keyedKind(value.description) : undefined;
        if (keyed) {
          out.push({ root, field, path: p, kind: keyed, key: true, relatedName: this.classOf(owner, field), label: label(p, '[<id>]') });
          return;
        }
        if (value.name === 'after' && !owner) {
          out.push({ root, field, path: p, kind: 'cursor', label: label(p) });
          return;
        }
        if (value.name === 'q' && (!owner || isFilter(owner)) && t.name === 'String') {
          out.push({ root, field, path: p, kind: 'search', label: label(p, " (B's text)") });
          return;
        }
        if (!namesRecord(t.name, value.name)) return;
        // An id of a field returning an interface (node(id), nodes(ids)): any record of its implementing types.
        const implementers = !owner && t.name === 'ID' ? this.interfaceKinds(field) : [];
        if (implementers.length) {
          for (const kind of implementers) out.push({ root, field, path: p, kind, label: label(p, ` (${kind})`) });
          return;
        }
        const typeName = value.name.replace(/Id$/, 'Type');
        const typeField = typeName !== value.name ? siblings.find((s) => s.name === typeName) : undefined;
        const poly = typeField ? this.model.enums.get(snake(typeName)) : undefined;
        if (poly?.length) {
          for (const v of poly) {
            const kind = kindOfBase(snake(v), this.model.kinds);
            if (kind) out.push({ root, field, path: p, kind, variant: { field: typeName, value: this.enumName(named(typeField!.type), v) }, label: label(p, ` (${typeName}=${v})`) });
          }
          return;
        }
        const { kind, childOf } = this.kindOf(value.name, t.name!, owner, field, value.description);
        // An id argument no kind is named for, of a field whose record belongs to a record of several types (a union,
        // createNote(parentId): the note's notable): any record of the union's member types.
        const parents = !kind && !owner && t.name === 'ID' ? this.unionKinds(field) : [];
        if (parents.length) {
          for (const parent of parents) out.push({ root, field, path: p, kind: parent, label: label(p, ` (${parent})`) });
          return;
        }
        const relatedName = kind && this.byRelatedName(kind) ? this.classOf(owner, field) : undefined;
        out.push({ root, field, path: p, kind: kind ?? `?${value.name}`, childOf, integer: t.name !== 'ID' && t.name !== 'String', relatedName, label: label(p) });
        return;
      }
      if (t.kind === 'INPUT_OBJECT' && depth < 6) {
        const type = this.schema.types.get(t.name!)!;
        for (const f of type.inputFields ?? []) visit(f, [...p, f.name], type, type.inputFields ?? [], depth + 1);
      }
    };
    for (const arg of field.args) visit(arg, [arg.name], undefined, field.args, 0);
    return out;
  }

  /**
   * Fields of an input type that are required although nullable in GraphQL (one input type serves new and
   * existing entries, like LineitemInput): the `required` of its REST create twin, the schema of the document
   * whose fields are the input's fields (camelCase) without `id`.
   */
  private restRequired(type: FullType): Set<string> {
    const names = (type.inputFields ?? []).map((f) => f.name).filter((n) => n !== 'id').sort().join(',');
    const twins = Object.entries<any>(this.model.doc.components.schemas)
      .map(([name, node]) => [name, deref(this.model.doc, node)] as const)
      .filter(([, node]) => node?.properties && Object.keys(node.properties).map(camel).sort().join(',') === names)
      .sort(([x], [y]) => Number(/Create$/.test(y)) - Number(/Create$/.test(x)));
    return new Set((twins[0]?.[1]?.required ?? []).map(camel));
  }

  /** The GraphQL name of a REST value of an enum type (Customer -> CUSTOMER, decision_maker -> DECISION_MAKER); the value itself otherwise. */
  private enumName(t: TypeRef, wire: string): string {
    const type = t.kind === 'ENUM' ? this.schema.types.get(t.name!) : undefined;
    const plain = (s: string) => s.replace(/_/g, '').toLowerCase();
    return type?.enumValues?.find((v) => plain(v.name) === plain(wire))?.name ?? wire;
  }

  private containsIds(t: TypeRef, depth = 0): boolean {
    const n = named(t);
    if (n.kind !== 'INPUT_OBJECT' || depth > 6) return false;
    const type = this.schema.types.get(n.name!)!;
    return (type.inputFields ?? []).some((f) => {
      const fn = named(f.type);
      return (fn.kind === 'SCALAR' && (namesRecord(fn.name, f.name) || !!this.keyedKind(f.description))) || this.containsIds(f.type, depth + 1);
    });
  }

  /**
   * A valid value of A's for an input type: required fields, id-like fields (A's records, coherent: the first of
   * each kind), entries of lists that hold ids, and JSON fields keyed by ids.
   */
  value(t: TypeRef, name: string, owner: FullType | undefined, field: Field, fill: (kind: string, opts: { childOf?: boolean; relatedName?: string }) => IdValue | undefined, siblings: InputValue[] = [], focus: (string | number)[] = []): unknown {
    if (t.kind === 'NON_NULL') return this.value(t.ofType!, name, owner, field, fill, siblings, focus);
    if (t.kind === 'LIST') return [this.value(t.ofType!, name, owner, field, fill, siblings, focus.slice(1))];
    if (t.kind === 'ENUM') {
      // A vocabulary (siteableType, itemType): the REST document's value as the enum names it, the type of its
      // sibling id when there is one; otherwise the first value.
      // The REST enum is found by field name, which two vocabularies may share (a phone number's kind, a stock
      // location's kind): only its values this enum type has count.
      const values = this.schema.types.get(t.name!)!.enumValues!.map((v) => v.name.replace(/_/g, '').toLowerCase());
      const restEnum = this.model.enums.get(snake(name))?.filter((v) => values.includes(v.replace(/_/g, '').toLowerCase()));
      const idField = name.replace(/Type$/, 'Id');
      const sibling = idField !== name && owner?.inputFields?.some((f) => f.name === idField);
      const wire = sibling ? restEnum?.find((v) => kindOfBase(snake(v), this.model.kinds)) : restEnum?.[0];
      return wire === undefined ? this.schema.types.get(t.name!)!.enumValues![0].name : this.enumName(t, wire);
    }
    if (t.kind === 'INPUT_OBJECT') {
      const type = this.schema.types.get(t.name!)!;
      const out: Record<string, unknown> = {};
      const restRequired = this.restRequired(type);
      // An entry's own id names an existing entry of the field's record: only when the field has one (updates).
      const hasTarget = field.args.some((a) => a.name === 'id');
      for (const f of type.inputFields ?? []) {
        // A list filter holds only the condition the position is in: other conditions of A's own values would
        // empty the list by themselves, and the answer would prove nothing about the position.
        if (isFilter(type) && focus[0] !== f.name) continue;
        const fn = named(f.type);
        const idLike = fn.kind === 'SCALAR' && namesRecord(fn.name, f.name);
        const entryId = f.name === 'id' && !hasTarget && focus[0] !== 'id';
        // The type of a polymorphic id (siteableType beside siteableId) goes with it.
        const polyType = /Type$/.test(f.name) && (type.inputFields ?? []).some((x) => x.name === f.name.replace(/Type$/, 'Id'));
        if (!entryId && (isRequired(f.type) || restRequired.has(f.name) || idLike || polyType || this.containsIds(f.type) || (fn.name === 'JSON' && this.keyedKind(f.description)))) {
          const v = this.value(f.type, f.name, type, field, fill, type.inputFields ?? [], focus[0] === f.name ? focus.slice(1) : []);
          if (v !== undefined) out[f.name] = v;
        }
      }
      // One of several optional members a valid input needs (its REST twin's ALTERNATIVES).
      const names = (type.inputFields ?? []).map((f) => f.name);
      for (const [prop, v] of Object.entries(alternativeMembers(names) ?? {})) if (names.includes(camel(prop))) out[camel(prop)] ??= v;
      return out;
    }
    // Scalars.
    const keyed = t.name === 'JSON' ? this.keyedKind(owner ? (owner.inputFields ?? []).find((f) => f.name === name)?.description ?? null : null) : undefined;
    if (keyed) {
      const id = fill(keyed, { relatedName: this.classOf(owner, field) });
      return id === undefined ? {} : { [String(id)]: 'sweep' };
    }
    if (namesRecord(t.name, name)) {
      const typeName = name.replace(/Id$/, 'Type');
      const typeField = typeName !== name ? siblings.find((s) => s.name === typeName) : undefined;
      const poly = typeField ? this.model.enums.get(snake(typeName)) : undefined;
      if (poly?.length) return fill(kindOfBase(snake(poly[0]), this.model.kinds)!, {});
      const { kind, childOf } = this.kindOf(name, t.name!, owner, field, owner?.inputFields?.find((f) => f.name === name)?.description ?? null);
      const relatedName = kind && this.byRelatedName(kind) ? this.classOf(owner, field) : undefined;
      const v = kind ? fill(kind, { childOf, relatedName }) : undefined;
      return t.name !== 'ID' && t.name !== 'String' && v !== undefined ? Number(v) : v;
    }
    // A string whose name is a polymorphic type (siteableType) or an enum of the REST document (itemType).
    const restEnum = this.model.enums.get(snake(name));
    if (t.name === 'String' && restEnum?.length) {
      const idField = name.replace(/Type$/, 'Id');
      if (idField !== name && owner?.inputFields?.some((f) => f.name === idField)) return restEnum.find((v) => kindOfBase(snake(v), this.model.kinds));
      return restEnum[0];
    }
    switch (t.name) {
      case 'String':
        // A value of a grammar (a recurrence rule): the REST twin's documented example.
        if (this.model.examples.has(snake(name))) return this.model.examples.get(snake(name));
        this.unique += 1;
        return `sweep ${this.unique}`;
      case 'Int':
      case 'Float':
      case 'SafeInt':
        return 1;
      case 'Boolean':
        return false;
      case 'Decimal':
        return '1';
      case 'Date':
        return '2026-03-02';
      case 'DateTime':
        return '2026-03-02T09:00:00.000Z';
      case 'JSON':
        return {};
      default:
        return null;
    }
  }

  /** The node type of a connection type (edges, nodes and pageInfo), or undefined for any other type. */
  connectionNode(typeName: string): string | undefined {
    const type = this.schema.types.get(typeName);
    const field = (name: string) => type?.fields?.find((f) => f.name === name);
    const nodes = field('nodes');
    return nodes && field('edges') && field('pageInfo') ? named(nodes.type).name! : undefined;
  }

  /**
   * A selection of the type: its leaves, and its object fields (relations) `depth` levels down, each type once per
   * branch. A connection is one level with its nodes (a collection below a record counts as a list did): its nodes'
   * selection one level down, the cursor and node id of its edges, and its pageInfo. With `only`, the record's
   * relations (at the top, or at the top's nodes) are that one alone (a record with many relations is swept one
   * relation per query, each as deep, when the server refuses all of them at once for their size: askRelationQuery).
   * With `brief`, a record below the first one (a relation, an entry of a connection below a record, a member of a
   * union there) is selected by its id and its relations only, not its other leaves: what tells whose record it is
   * is its id, and the selection of every type stays small however many relations and members types gain.
   */
  selection(typeName: string, depth: number, seen: string[] = [], only?: string, brief = false): string {
    const type = this.schema.types.get(typeName)!;
    const node = this.connectionNode(typeName);
    const hasId = (t: FullType | undefined) => t?.fields?.some((f) => f.name === 'id') ?? false;
    // Below the first record (one of the types already walked through has an id): its id alone, with `brief`.
    const idOnly = brief && seen.some((name) => hasId(this.schema.types.get(name)));
    if (node) {
      const edgeNode = this.schema.types.get(node)?.fields?.some((f) => f.name === 'id') ? 'node { __typename id }' : 'node { __typename }';
      const nodes = depth > 0 ? `nodes { ${this.selection(node, depth - 1, seen, seen.length === 0 ? only : undefined, brief)} } ` : '';
      // The edges of the operation's own connection (`seen` is empty at the top): those below records cost as much again.
      const edges = seen.length === 0 ? `edges { cursor ${edgeNode} } ` : '';
      return `__typename ${nodes}${edges}pageInfo { hasNextPage hasPreviousPage startCursor endCursor }`;
    }
    if (type.kind === 'UNION' || type.kind === 'INTERFACE') {
      // The members' leaves, but those whose type differs between members (they could not be merged).
      const members = (type.possibleTypes ?? []).map((p) => this.schema.types.get(p.name)!);
      const leafType = new Map<string, Set<string>>();
      for (const m of members) {
        for (const f of m.fields ?? []) {
          const k = this.schema.types.get(named(f.type).name!)!.kind;
          if ((k === 'SCALAR' || k === 'ENUM') && !f.args.some((a) => isRequired(a.type))) {
            (leafType.get(f.name) ?? leafType.set(f.name, new Set()).get(f.name)!).add(typeString(f.type));
          }
        }
      }
      const parts = members.map((m) => {
        const leaves = (m.fields ?? []).filter((f) => leafType.get(f.name)?.size === 1 && (!idOnly || !hasId(m) || f.name === 'id')).map((f) => f.name);
        return `... on ${m.name} { ${leaves.join(' ')} }`;
      });
      return `__typename ${parts.join(' ')}`;
    }
    const parts: string[] = ['__typename'];
    for (const f of type.fields ?? []) {
      if (f.args.some((a) => isRequired(a.type))) continue;
      const n = named(f.type);
      const target = this.schema.types.get(n.name!)!;
      const node = this.connectionNode(target.name);
      if (target.kind === 'SCALAR' || target.kind === 'ENUM') {
        if (!idOnly || !hasId(type) || f.name === 'id') parts.push(f.name);
      }
      // `only`: of the record's relations, this one alone (its leaves are all kept).
      else if (only !== undefined && f.name !== only) continue;
      // A connection below a record: one level with its nodes (selection() takes the level for the nodes).
      else if (node) {
        // A has a few records of each kind: 5 per page keeps the deep selection under the cost limit.
        const page = f.args.some((a) => a.name === 'first') ? '(first: 5)' : '';
        if (depth > 0 && !seen.includes(node)) parts.push(`${f.name}${page} { ${this.selection(target.name, depth, [...seen, typeName], undefined, brief)} }`);
      } else if (depth > 0 && !seen.includes(target.name)) parts.push(`${f.name} { ${this.selection(target.name, depth - 1, [...seen, typeName], undefined, brief)} }`);
    }
    return parts.join(' ');
  }
}

/**
 * The operation text and the variables for a field with the given argument values (`only`: one relation of its
 * record; `brief`: records below the first by their ids, GqlBuilder.selection).
 */
export function operation(builder: GqlBuilder, root: 'query' | 'mutation', field: Field, args: Record<string, unknown>, depth: number, only?: string, brief = false): string {
  const used = field.args.filter((a) => args[a.name] !== undefined);
  const vars = used.map((a) => `$${a.name}: ${typeString(a.type)}`).join(', ');
  const call = used.length ? `(${used.map((a) => `${a.name}: $${a.name}`).join(', ')})` : '';
  const ret = named(field.type);
  const sel = builder.schema.types.get(ret.name!)!.kind === 'SCALAR' || builder.schema.types.get(ret.name!)!.kind === 'ENUM' ? '' : ` { ${builder.selection(ret.name!, depth, [], only, brief)} }`;
  return `${root} Sweep${vars ? `(${vars})` : ''} { ${field.name}${call}${sel} }`;
}

const ETAG_ARG = /^ifMatch$/i;

export async function runGraphqlSweep(builder: GqlBuilder, gql: Gql, a: Side, b: Side, width: number): Promise<GqlSweep> {
  const { schema, model } = builder;
  const shared = sharedKinds(a.catalog, b.catalog);
  const roots: ['query' | 'mutation', FullType | undefined][] = [['query', schema.query], ['mutation', schema.mutation]];
  const positions: GqlPosition[] = [];
  const skipped: GqlSweep['skipped'] = [];
  const fields: string[] = [];
  const jobs: { label: string; foreign: IdValue; random: IdValue; root: 'query' | 'mutation'; field: Field; vars: (v: IdValue) => Record<string, unknown>; position: GqlPosition }[] = [];

  for (const [root, type] of roots) {
    for (const field of type?.fields ?? []) {
      fields.push(`${root} ${field.name}`);
      const found = builder.positions(root, field);
      positions.push(...found);
      const resKind = kindOfBase(snake(recordClass(schema, field) ?? ''), model.kinds);
      const idArg = field.args.find((x) => x.name === 'id');
      for (const position of found) {
        if (position.kind.startsWith('?')) {
          skipped.push({ label: position.label, reason: `no kind of record matches ${position.path.join('.')}` });
          continue;
        }
        if (shared.has(position.kind)) {
          skipped.push({ label: position.label, reason: `${position.kind} is a catalog both tenants share` });
          continue;
        }
        const targetOf = (catalog: Catalog) => (idArg && resKind ? pick(catalog, resKind)?.id : undefined);
        const aTarget = targetOf(a.catalog);
        const fill = (kind: string, opts: { childOf?: boolean; relatedName?: string }) =>
          pick(a.catalog, kind, { parent: opts.childOf && aTarget !== undefined ? String(aTarget) : undefined, relatedName: opts.relatedName })?.id;
        // A's arguments: required ones, the one holding the position, and the ETag the operation needs.
        const args: Record<string, unknown> = {};
        for (const arg of field.args) {
          if (isRequired(arg.type) || arg.name === position.path[0]) {
            args[arg.name] = builder.value(arg.type, arg.name, undefined, field, fill, field.args, arg.name === position.path[0] ? position.path.slice(1) : []);
          }
        }
        let foreigns: IdValue[];
        let random: IdValue;
        if (position.kind === 'cursor') {
          const rest = model.lists.find((l) => l.path === `/${snake(field.name)}`);
          foreigns = [b.gqlCursors.get(field.name), rest ? b.restCursors.get(rest.path) : undefined].filter((c): c is string => !!c);
          random = garbageCursor();
        } else if (position.kind === 'search') {
          foreigns = [b.marker];
          random = randomMarker();
        } else {
          const bTarget = targetOf(b.catalog);
          const ref = pick(b.catalog, position.kind, { parent: position.childOf && bTarget !== undefined ? String(bTarget) : undefined, relatedName: position.relatedName });
          // An argument of the field itself (id, contactId, linkageId) is tried with up to three records of B's.
          const all = position.path.length === 1 ? spread((b.catalog.refs.get(position.kind) ?? []).map((r) => r.id)) : ref ? [ref.id] : [];
          foreigns = position.integer ? all.map(Number) : all;
          random = foreigns.length ? randomIdLike(foreigns[0]) : '';
        }
        if (foreigns.length === 0) {
          skipped.push({ label: position.label, reason: `tenant B has no ${position.kind} to use` });
          continue;
        }
        const etagArg = field.args.find((x) => ETAG_ARG.test(x.name));
        for (const foreign of foreigns) {
          const vars = (value: IdValue) => {
            const v = structuredClone(args);
            if (position.key) setAt(v, position.path, { [String(value)]: 'sweep' });
            else setAt(v, position.path, value);
            if (position.variant) setAt(v, [...position.path.slice(0, -1), position.variant.field], position.variant.value);
            if (etagArg) {
              const onTarget = position.path.length === 1 && position.path[0] === 'id';
              const id = onTarget ? String(foreign) : aTarget !== undefined ? String(aTarget) : undefined;
              v[etagArg.name] = (id && (b.catalog.etags.get(id) ?? a.catalog.etags.get(id))) ?? 'W/"0-0"';
            }
            return v;
          };
          jobs.push({ label: position.label, foreign, random, root, field, vars, position });
        }
      }
    }
  }

  const checks = await pool(jobs, width, async ({ label, foreign, random, root, field, vars, position }) => {
    // The returned record and its relations (a payload's record is one level further down), the relations by their
    // ids: the answers to B's and to the random value are compared, and an id tells whose record a relation serves
    // (the relation sweep below reads every leaf of A's relations).
    const query = operation(builder, root, field, vars(foreign), root === 'mutation' ? 3 : 2, undefined, true);
    const send = async (value: IdValue) => {
      const res = await gql(query, vars(value));
      return { status: res.status, body: res.body };
    };
    const f = normalise(await send(foreign), [foreign]);
    const r = normalise(await send(random), [random]);
    return {
      label,
      request: `${query}\n  variables ${JSON.stringify(vars(foreign))}`,
      same: JSON.stringify(f) === JSON.stringify(r),
      foreign: f,
      random: r,
      vacuous: gqlVacuity(position, r as any),
    };
  });
  return { positions, skipped, checks, fields };
}

/** Whether the answer to the random value shows that the position was looked at. */
function gqlVacuity(position: GqlPosition, res: { status: number; body: { data?: any; errors?: any[] } }): string | null {
  const errors = res.body.errors ?? [];
  if (!res.body.data) return `the operation was refused as a whole: ${JSON.stringify(errors).slice(0, 300)}`;
  const data = res.body.data?.[position.field.name];
  if (position.kind === 'cursor') return errors.some((e) => e.extensions?.code === 'cursor.invalid') ? null : `a garbage cursor answered ${JSON.stringify(res.body).slice(0, 200)}`;
  // A mutation answers what the caller can fix (an unknown id: resource.not_found, or validation.failed naming
  // the field) in its payload's userErrors, with nothing written: that refusal counts as a top-level error did.
  const userErrors: { field: string[] | null; message: string; code: string }[] = position.root === 'mutation' && Array.isArray(data?.userErrors) ? data.userErrors : [];
  if (errors.length === 0 && userErrors.length > 0) {
    const written = Object.entries(data).filter(([key, value]) => key !== 'userErrors' && key !== '__typename' && value !== null);
    if (written.length > 0) return `userErrors beside a written ${written.map(([key]) => key).join(', ')}`;
    const invalid = userErrors.filter((e) => e.code === 'validation.failed' && e.field);
    if (invalid.length === 0) return null;
    // The field's path below the argument (["input", "lineitems", "0", "id"] -> lineitems.0.id), as REST names it.
    return fieldsNamed(position, invalid.map((e) => (e.field!.length > 1 ? e.field!.slice(1) : e.field!).join('.')));
  }
  if (errors.length === 0) {
    if (position.root === 'mutation') return 'a random id was accepted';
    if (data && Array.isArray(data.nodes)) return data.nodes.length === 0 ? null : 'a random filter value did not empty the list';
    // nodes(ids) answers null in place of an id that is no record of the caller's.
    if (Array.isArray(data)) return data.every((entry) => entry === null) ? null : 'a random id listed records';
    return data === null ? null : 'a random id was found';
  }
  const fieldErrors = errors.find((e) => e.extensions?.errors)?.extensions.errors;
  if (fieldErrors) return fieldsNamed(position, Object.keys(fieldErrors));
  return null;
}

/** Whether the field errors (keys such as siteId, lineitems.0.id, customFields.<ID>) name the position. */
function fieldsNamed(position: GqlPosition, keys: string[]): string | null {
  const last = String([...position.path].reverse().find((s) => typeof s === 'string'));
  // An entry of a list of ids (input.assetIds.0) is named by its index: assetIds.0.
  const below = position.path.slice(1).join('.');
  const named = keys.some((k) => k === last || k === below || k.endsWith(`.${last}`) || k.includes('<ID>') || (position.variant && k === position.variant.field));
  return named ? null : `the error names ${keys.join(', ')}, not ${position.path.join('.')}`;
}

/** A pageInfo.endCursor issued to the caller for every connection field of Query (first: 1). */
export async function graphqlCursors(builder: GqlBuilder, gql: Gql): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const field of builder.schema.query.fields ?? []) {
    const ret = builder.schema.types.get(named(field.type).name!);
    const pageInfo = ret?.fields?.find((f) => f.name === 'pageInfo');
    if (!pageInfo || !field.args.some((x) => x.name === 'first') || field.args.some((x) => isRequired(x.type))) continue;
    const res = await gql(`query { ${field.name}(first: 1) { pageInfo { endCursor } } }`);
    const cursor = res.body.data?.[field.name]?.pageInfo?.endCursor;
    if (cursor) out.set(field.name, cursor);
  }
  return out;
}

/**
 * Queries of A's own data through every Query field, with every relation selected a few levels deep: each
 * single-record field once per record of A's of its kind, each list with its first page, the other required
 * arguments filled as in the sweep (DateTime arguments as a wide window, in order).
 */
/** A query of the relation sweep; `parts` splits it when the server refuses it as too large (see relationParts). */
export interface RelationQuery {
  label: string;
  query: string;
  variables: Record<string, unknown>;
  parts?: () => RelationQuery[];
}

/**
 * The relations of the record a query field returns (through its connection), each reachable on its own: a
 * query refused for its size (more relations than the token, cost or size limits allow at once) is asked again as
 * one query per relation, at the same depth, and a relation still refused one level shallower, down to its leaves.
 */
function relationParts(builder: GqlBuilder, field: Field, variables: Record<string, unknown>, depth: number, label: string, only?: string): RelationQuery[] {
  if (only !== undefined) {
    if (depth <= 1) return [];
    const query = operation(builder, 'query', field, variables, depth - 1, only);
    return [{ label: `${label} (depth ${depth - 1})`, query, variables, parts: () => relationParts(builder, field, variables, depth - 1, label, only) }];
  }
  const returned = named(field.type).name!;
  const record = builder.schema.types.get(builder.connectionNode(returned) ?? returned);
  const relations = (record?.fields ?? []).filter((f) => {
    const kind = builder.schema.types.get(named(f.type).name!)!.kind;
    return kind !== 'SCALAR' && kind !== 'ENUM' && !f.args.some((a) => isRequired(a.type));
  });
  return relations.map((relation) => {
    const part = `${label} .${relation.name}`;
    return { label: part, query: operation(builder, 'query', field, variables, depth, relation.name), variables, parts: () => relationParts(builder, field, variables, depth, part, relation.name) };
  });
}

/** The codes of a query refused for its size alone, which relationParts can ask again in smaller parts. */
const REFUSED_FOR_SIZE = new Set(['graphql.too_many_tokens', 'graphql.result_too_large', 'graphql.cost_exceeded']);

/**
 * Asks a relation query; when the server refuses it for its size, asks its parts instead (recursively). `answer`
 * sees every answer that was not split. Returns how many queries were split.
 */
export async function askRelationQuery(gql: Gql, q: RelationQuery, answer: (q: RelationQuery, res: Awaited<ReturnType<Gql>>) => void): Promise<number> {
  const res = await gql(q.query, q.variables);
  const codes = (res.body.errors ?? []).map((e) => String(e.extensions?.code));
  const parts = res.status === 400 && codes.length > 0 && codes.every((code) => REFUSED_FOR_SIZE.has(code)) && q.parts ? q.parts() : [];
  if (parts.length === 0) {
    answer(q, res);
    return 0;
  }
  let split = 1;
  for (const part of parts) split += await askRelationQuery(gql, part, answer);
  return split;
}

export function relationQueries(builder: GqlBuilder, catalog: Catalog, depth: number): RelationQuery[] {
  const out: RelationQuery[] = [];
  const window = ['2000-01-01T00:00:00.000Z', '2100-01-01T00:00:00.000Z'];
  for (const field of builder.schema.query.fields ?? []) {
    const ret = builder.schema.types.get(named(field.type).name!)!;
    if (ret.kind === 'SCALAR' || ret.kind === 'ENUM') continue;
    const fill = (kind: string, opts: { relatedName?: string }) => pick(catalog, kind, opts)?.id;
    const base: Record<string, unknown> = {};
    let dates = 0;
    for (const arg of field.args) {
      if (named(arg.type).name === 'DateTime' && isRequired(arg.type)) base[arg.name] = window[Math.min(dates++, window.length - 1)];
      else if (isRequired(arg.type)) base[arg.name] = builder.value(arg.type, arg.name, undefined, field, fill, field.args);
      // A has a few records of each kind: 5 per top-level page keeps the deep selection under the cost limit.
      else if (arg.name === 'limit' || arg.name === 'first') base[arg.name] = 5;
    }
    const idArgs = field.args.filter((x) => isRequired(x.type) && named(x.type).name === 'ID');
    if (idArgs.length === 1) {
      const kind = builder.kindOf(idArgs[0].name, 'ID', undefined, field, idArgs[0].description).kind;
      for (const ref of kind ? (catalog.refs.get(kind) ?? []) : []) {
        const variables = { ...base, [idArgs[0].name]: ref.id };
        const label = `query ${field.name}(${idArgs[0].name}: ${ref.id})`;
        out.push({ label, query: operation(builder, 'query', field, variables, depth), variables, parts: () => relationParts(builder, field, variables, depth, label) });
      }
    } else {
      const label = `query ${field.name}`;
      out.push({ label, query: operation(builder, 'query', field, base, depth), variables: base, parts: () => relationParts(builder, field, base, depth, label) });
    }
  }
  return out;
}

/**
 * What of tenant B an answer to A shows: B's marker anywhere, and B's ids as the id of an object (a record of B's
 * served to A). With `references`, also B's ids as the value of any other id-like key (`customerId`).
 */
export function foreignIn(value: unknown, foreignIds: Set<string>, marker: string, references: boolean, typenames?: Set<string>): string[] {
  const found: string[] = [];
  const walk = (v: unknown, key: string, path: string) => {
    if (typeof v === 'string' && v.includes(marker)) found.push(`${path}: ${v.slice(0, 80)}`);
    if (key === '__typename' && typeof v === 'string') typenames?.add(v);
    if ((typeof v === 'string' || typeof v === 'number') && foreignIds.has(String(v))) {
      if (key === 'id' || (references && /(^id|Id|_id)$/.test(key))) found.push(`${path} = ${v} (B's)`);
    }
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, key, `${path}.${i}`));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k, `${path}.${k}`);
  };
  walk(value, '', '');
  return found;
}
