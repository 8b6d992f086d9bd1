import {
  getArgumentValues,
  getNamedType,
  getNullableType,
  isEnumType,
  isInterfaceType,
  isLeafType,
  isListType,
  isObjectType,
  Kind,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { FieldComplexityValue } from '@pothos/plugin-complexity';

import { limits } from '../schema/cost.ts';

// Step 2 of the limits, after the cost (docs/graphql-limits.md): the largest answer an operation can have, in the
// result meter's unit (characters of values), computed from the document before anything runs. Each field is
// multiplied as its cost is (its `complexity` in the schema: a page's first or limit, the ids of nodes(ids:), the
// assumed size of a list that is not paginated), and each leaf counts its longest value: the declared maximum of a
// record's text field (`maxChars` in the field's extensions, set from the declaration), or its scalar's longest
// form. A fragment's bound is computed once per type it is spread on, so a fragment bomb costs little to bound.

/** Longest served form of each scalar whose fields do not declare one (String: an assumed short text). */
const scalarChars: Record<string, number> = {
  ID: 36,
  String: 255,
  Int: 11,
  Float: 24,
  Boolean: 5,
  SafeInt: 16,
  Decimal: 24,
  Date: 10,
  DateTime: 24,
  JSON: limits.assumedJsonChars,
};

/** Extensions of a field the bound reads: its cost (Pothos' complexity plugin) and its longest value. */
interface BoundExtensions {
  complexity?: FieldComplexityValue | ((args: Record<string, unknown>, ctx: unknown, field: GraphQLField<unknown, unknown>) => FieldComplexityValue);
  maxChars?: number;
}

function leafChars(field: GraphQLField<unknown, unknown>, named: GraphQLNamedType): number {
  const declared = (field.extensions as BoundExtensions).maxChars;
  if (declared !== undefined) return declared;
  const one = isEnumType(named) ? Math.max(0, ...named.getValues().map((value) => value.name.length)) : (scalarChars[named.name] ?? scalarChars.String);
  return isListType(getNullableType(field.type)) ? one * limits.listMultiplier : one;
}

/** How many times a field's selection is served per parent object: the multiplier its cost uses. */
function multiplierOf(field: GraphQLField<unknown, unknown>, node: FieldNode, variables: Record<string, unknown>, context: object): number {
  let complexity = (field.extensions as BoundExtensions).complexity;
  if (typeof complexity === 'function') complexity = complexity(getArgumentValues(field, node, variables), context, field);
  if (typeof complexity === 'object' && complexity.multiplier !== undefined) return Math.max(0, complexity.multiplier);
  return isListType(getNullableType(field.type)) ? limits.listMultiplier : 1;
}

/**
 * The most characters of values the operation's answer can hold (what the result meter would count), for the
 * operation a request selects with its fragments and coerced variables. Throws what argument coercion throws.
 */
export function resultBound(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
  context: object,
): number {
  const memo = new Map<SelectionSetNode, Map<GraphQLNamedType, number>>();
  const active = new Set<SelectionSetNode>();

  const ofField = (node: FieldNode, parent: GraphQLNamedType): number => {
    const name = node.name.value;
    if (name === '__typename') return scalarChars.String;
    if (name === '__schema') return limits.schemaChars;
    if (name === '__type') return limits.typeChars;
    if (!isObjectType(parent) && !isInterfaceType(parent)) return 0;
    const field = parent.getFields()[name] as GraphQLField<unknown, unknown> | undefined;
    if (!field) return 0;
    const named = getNamedType(field.type);
    if (isLeafType(named)) return leafChars(field, named);
    if (!node.selectionSet) return 0;
    return multiplierOf(field, node, variables, context) * ofSelectionSet(node.selectionSet, named);
  };

  const ofSelectionSet = (selectionSet: SelectionSetNode, type: GraphQLNamedType): number => {
    const known = memo.get(selectionSet)?.get(type);
    if (known !== undefined) return known;
    if (active.has(selectionSet)) return 0; // a fragment cycle: validation refuses the document
    active.add(selectionSet);
    let chars = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        chars += ofField(selection, type);
        continue;
      }
      const fragment = selection.kind === Kind.INLINE_FRAGMENT ? selection : fragments.get(selection.name.value);
      if (!fragment) continue;
      const condition = fragment.typeCondition ? schema.getType(fragment.typeCondition.name.value) : type;
      chars += ofSelectionSet(fragment.selectionSet, condition ?? type);
    }
    active.delete(selectionSet);
    if (!memo.has(selectionSet)) memo.set(selectionSet, new Map());
    memo.get(selectionSet)!.set(type, chars);
    return chars;
  };

  const root = schema.getRootType(operation.operation);
  return root ? ofSelectionSet(operation.selectionSet, root) : 0;
}
