import type { FieldKind, FieldSpec } from './fields.ts';
import type { Relations } from './relation.ts';

// A wire shape: the one declaration of a JSON object the API serves that is not a resource record (me, lookup
// entries, a contact linkage, a user, a system option). From it come the TypeScript type its serializer returns
// (WireOf), the GraphQL object type (src/graphql/schema/wire-object.ts) and the OpenAPI component
// (src/rest/wire-shape-schema.ts), so the three cannot drift apart. Field names are the REST wire names
// (snake_case); GraphQL serves them in camelCase.

/** A value kind of a wire field, with its JSON type. */
export interface WireKinds {
  string: string;
  email: string;
  /** A UUID (GraphQL ID). */
  uuid: string;
  /** An RFC 3339 timestamp. */
  datetime: string;
  integer: number;
  number: number;
  /** A database bigint id served as a JSON number (GraphQL SafeInt). */
  int64: number;
  boolean: boolean;
  'string[]': string[];
  /** An object whose keys are data (GraphQL JSON). */
  json: object;
}

export type WireKind = keyof WireKinds;

export interface WireField {
  /** The value kind, or another shape nested as an object. */
  kind: WireKind | WireShape;
  /** The value may be null (default false). */
  nullable?: boolean;
  /** The value is one of these (string kinds, and the entries of string[]; documentation of served values). */
  enum?: readonly string[];
  /** For json: the keys the object has and the values each takes (documentation of served values). */
  values?: Readonly<Record<string, readonly string[]>>;
  description?: string;
}

export interface WireShape<Fields extends Record<string, WireField> = Record<string, WireField>> {
  /** Type name in GraphQL and component name in OpenAPI: "ContactLinkage". */
  name: string;
  description: string;
  /** In wire order. */
  fields: Fields;
  /** Links to other served objects (see relation.ts). */
  relations?: Relations;
}

type ValueOf<F extends WireField> =
  | (F['kind'] extends WireShape<infer Nested> ? WireObject<Nested> : F['kind'] extends WireKind ? WireKinds[F['kind']] : never)
  | (F['nullable'] extends true ? null : never);

type WireObject<Fields extends Record<string, WireField>> = { [K in keyof Fields]: ValueOf<Fields[K]> };

/** The object a serializer of the shape returns. */
export type WireOf<S extends WireShape> = S extends WireShape<infer Fields> ? WireObject<Fields> : never;

/** Declares a shape, keeping its field names and kinds as literal types (for WireOf). */
export function wireShape<const Fields extends Record<string, WireField>>(shape: WireShape<Fields>): WireShape<Fields> {
  return shape;
}

/** The served kind of a written field kind (dates, decimals and text travel as strings). */
type ServedKind<K extends FieldKind> = K extends 'email' | 'uuid' | 'datetime' | 'integer' | 'int64' | 'number' | 'boolean' ? K : 'string';

const servedKind = (kind: FieldKind): WireKind =>
  kind === 'email' || kind === 'uuid' || kind === 'datetime' || kind === 'integer' || kind === 'int64' || kind === 'number' || kind === 'boolean' ? kind : 'string';

/**
 * Written fields (FieldSpec, as a write body declares them) as they are served: the same names, kinds, enums and
 * descriptions; a field is nullable when it is not required on create and says nothing else.
 */
export function servedFields<const Specs extends Record<string, FieldSpec>>(
  specs: Specs,
): { [K in keyof Specs]: { kind: ServedKind<Specs[K]['kind']>; nullable: Specs[K]['nullable'] extends false ? false : boolean } } {
  return Object.fromEntries(
    Object.entries(specs).map(([name, spec]) => [
      name,
      { kind: servedKind(spec.kind), nullable: spec.nullable ?? spec.create !== 'required', enum: spec.enum, description: spec.description },
    ]),
  ) as never;
}
