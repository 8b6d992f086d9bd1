import {
  defaultFieldResolver,
  getNamedType,
  isAbstractType,
  isLeafType,
  isObjectType,
  type FieldNode,
  type GraphQLResolveInfo,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import { AppError } from '../../kernel/errors.ts';
import { WINDOW_SECONDS, type RateDecision } from '../../kernel/rate-limit.ts';
import type { GraphQLContext } from './builder.ts';
import { eachSelectedField, fieldSelections } from './selection.ts';

import { limits } from './cost.ts';

// The meter of an execution (docs/graphql-limits.md, step 3): what one operation resolved, in objects and characters,
// counted as resolvers return and reported in extensions.cost; past a maximum the execution is aborted.

/** The throttle state reported in extensions.cost, as Shopify's and Jobber's APIs report theirs. */
export interface ThrottleStatus {
  maximumAvailable: number;
  currentlyAvailable: number;
  /** Average points restored per second (the window refills whole every WINDOW_SECONDS). */
  restoreRate: number;
  /** Seconds until the window refills. */
  resetSeconds: number;
}

/** The cost state of one GraphQL request, reported in extensions.cost. */
export class OperationCost {
  requested: number | null = null;
  objects = 0;
  bytes = 0;
  decision: RateDecision | undefined;
  /** Made when an execution asks for the signal: a subscription's meter (one per open subscription) never does. */
  private controller: AbortController | null = null;
  private failure: AppError | null = null;

  constructor(decision?: RateDecision) {
    this.decision = decision;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.failure) this.controller.abort(this.failure);
    }
    return this.controller.signal;
  }

  /** A subscription's next event: its result is counted afresh (the limits hold per result, not per subscription). */
  nextEvent(): void {
    this.objects = 0;
    this.bytes = 0;
  }

  /** Why execution was aborted, if it was. */
  get exceeded(): AppError | null {
    return this.failure;
  }

  /** Counts a resolved value (a leaf's bytes; an object, and the bytes of its `properties` selected); aborts the execution once the result grows past its maximum. */
  count(value: unknown, kind: Counted, name: string, properties: readonly string[] | null = null): void {
    if (this.failure || value === null || value === undefined) return;
    if (kind === 'object') this.objects += Array.isArray(value) ? value.length : 1;
    if (kind === 'leaf') this.bytes += name.length + leafBytes(value);
    else if (properties && properties.length > 0) this.bytes += propertyBytes(value, properties);
    if (this.objects > limits.maxResultObjects || this.bytes > limits.maxResultBytes) {
      this.failure = new AppError(
        'graphql.result_too_large',
        `The result grew past ${limits.maxResultObjects} objects or ${limits.maxResultBytes} characters; select fewer fields or smaller pages.`,
      );
      this.controller?.abort(this.failure);
      throw this.failure;
    }
  }

  report(): Record<string, unknown> {
    const throttle: ThrottleStatus | null = this.decision
      ? {
          maximumAvailable: this.decision.limit,
          currentlyAvailable: this.decision.remaining,
          restoreRate: Math.round(this.decision.limit / WINDOW_SECONDS),
          resetSeconds: this.decision.resetSeconds,
        }
      : null;
    return { requestedQueryCost: this.requested, actualQueryCost: this.requested === null ? null : this.objects, throttleStatus: throttle };
  }
}

/**
 * Wraps every resolver of the schema's own object types so that what it returns is counted by the operation's
 * meter (OperationCost.count). A leaf field without a resolver (a record's own fields, read as properties, see
 * record-source.ts) stays without one, so graphql-jit reads it inline: the bytes of such fields are counted when
 * the field returning their object is, once per selection of each (aliases included), from the values the
 * object holds (propertyBytes). Introspection types are left alone: graphql-js shares them between schemas.
 */
export function meterSchema(schema: GraphQLSchema): GraphQLSchema {
  const ownTypes = Object.values(schema.getTypeMap()).filter((type): type is GraphQLObjectType => isObjectType(type) && !type.name.startsWith('__'));
  // Per type: its leaf fields read as properties.
  const properties = new Map<string, Set<string>>();
  for (const type of ownTypes) {
    const names = Object.values(type.getFields()).filter((field) => !field.resolve && isLeafType(getNamedType(field.type))).map((field) => field.name);
    if (names.length > 0) properties.set(type.name, new Set(names));
  }
  const propertiesOf = (type: GraphQLNamedType): Set<string> | null => {
    const members = isAbstractType(type) ? schema.getPossibleTypes(type) : [type];
    const names = new Set(members.flatMap((member) => [...(properties.get(member.name) ?? [])]));
    return names.size > 0 ? names : null;
  };
  for (const type of ownTypes) {
    for (const field of Object.values(type.getFields())) {
      const named = getNamedType(field.type);
      if (!field.resolve && isLeafType(named)) continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      // An object the cost estimate calls free (pageInfo, part of its page) is not counted as one either.
      const kind: Counted = isLeafType(named) ? 'leaf' : field.extensions?.complexity === 0 ? 'free' : 'object';
      const read = kind === 'leaf' ? null : propertiesOf(named);
      const name = field.name;
      field.resolve = (source, args, context: GraphQLContext, info) => {
        const meter = context?.cost;
        // Once the result is refused nothing more is resolved (graphql-jit, jit.ts, takes no abort signal).
        if (meter?.exceeded) throw meter.exceeded;
        const value = resolve(source, args, context, info);
        if (!meter) return value;
        const selected = read ? selectedProperties(info, read) : null;
        if (value instanceof Promise) return value.then((resolved) => (meter.count(resolved, kind, name, selected), resolved));
        meter.count(value, kind, name, selected);
        return value;
      };
    }
  }
  return schema;
}

/** What a field returns, for the meter: leaf values (bytes), objects (counted), free objects (neither). */
type Counted = 'leaf' | 'object' | 'free';

const selectedPerField = new WeakMap<readonly FieldNode[], string[]>();

/**
 * The fields read as properties (`read`) that the selection under the resolver's field asks for, once per
 * selection (an alias is another), fragments expanded. Computed once per field of the operation.
 */
function selectedProperties(info: GraphQLResolveInfo, read: Set<string>): string[] {
  const known = selectedPerField.get(info.fieldNodes);
  if (known) return known;
  const names: string[] = [];
  eachSelectedField(info, fieldSelections(info), (field) => {
    if (!field.selectionSet && read.has(field.name.value)) names.push(field.name.value);
  });
  selectedPerField.set(info.fieldNodes, names);
  return names;
}

/** Characters of a leaf value as served, about. */
function leafBytes(value: unknown): number {
  if (value === null || value === undefined) return 0;
  if (typeof value === 'string') return value.length;
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + String(v).length, 0);
  return 8;
}

/** Characters of the selected property fields of an object (of each object of a list) as served: their names and values. */
function propertyBytes(value: unknown, selected: readonly string[]): number {
  if (Array.isArray(value)) {
    let bytes = 0;
    for (const item of value) bytes += propertyBytes(item, selected);
    return bytes;
  }
  if (value === null || typeof value !== 'object') return 0;
  let bytes = 0;
  for (const name of selected) bytes += name.length + leafBytes((value as Record<string, unknown>)[name]);
  return bytes;
}

