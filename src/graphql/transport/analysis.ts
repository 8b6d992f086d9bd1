import { complexityFromQuery } from '@pothos/plugin-complexity';
import {
  GraphQLError,
  Kind,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

import { limits } from '../schema/cost.ts';
import { printable } from '../../kernel/storable.ts';
import { refusal } from './document-limits.ts';
import { resultBound } from './result-bound.ts';

// Step 2 of the limits (docs/graphql-limits.md): the operation's cost, depth, aliases and mutation fields, computed
// from the document and the variables before anything executes.

interface Counts {
  aliases: number;
  mutationFields: number;
  /** `__schema` and `__type` selections at the root (aliases and fragments counted). */
  schemas: number;
  types: number;
}

/** Aliases in a selection set, every fragment spread counted in full (memoized, so a fragment bomb costs little to count). */
function countAliases(selectionSet: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, memo: Map<SelectionSetNode, number>, active: Set<SelectionSetNode>): number {
  const known = memo.get(selectionSet);
  if (known !== undefined) return known;
  if (active.has(selectionSet)) return 0; // a fragment cycle: validation refuses the document
  active.add(selectionSet);
  let count = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (selection.alias) count += 1;
      if (selection.selectionSet) count += countAliases(selection.selectionSet, fragments, memo, active);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      count += countAliases(selection.selectionSet, fragments, memo, active);
    } else {
      const fragment = fragments.get(selection.name.value);
      if (fragment) count += countAliases(fragment.selectionSet, fragments, memo, active);
    }
    if (count > limits.maxAliases) break;
  }
  active.delete(selectionSet);
  memo.set(selectionSet, count);
  return count;
}

/**
 * Root fields that `counts` counts (one each), through fragments, each fragment counted once per spread
 * (memoized, so a fragment bomb costs little to count): a mutation's fields (each one write), or its
 * introspection fields (only the root has them).
 */
function countRootFields(
  selectionSet: SelectionSetNode,
  fragments: Map<string, FragmentDefinitionNode>,
  counts: (name: string) => boolean,
  memo = new Map<SelectionSetNode, number>(),
  active = new Set<SelectionSetNode>(),
): number {
  const known = memo.get(selectionSet);
  if (known !== undefined) return known;
  if (active.has(selectionSet)) return 0; // a fragment cycle: validation refuses the document
  active.add(selectionSet);
  let count = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) count += counts(selection.name.value) ? 1 : 0;
    else if (selection.kind === Kind.INLINE_FRAGMENT) count += countRootFields(selection.selectionSet, fragments, counts, memo, active);
    else {
      const fragment = fragments.get(selection.name.value);
      if (fragment) count += countRootFields(fragment.selectionSet, fragments, counts, memo, active);
    }
  }
  active.delete(selectionSet);
  memo.set(selectionSet, count);
  return count;
}

function selectedOperation(document: DocumentNode, operationName: string | null | undefined): OperationDefinitionNode | null {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (operationName) return operations.find((op) => op.name?.value === operationName) ?? null;
  return operations.length === 1 ? operations[0] : null;
}

/**
 * The first variable the request gives that no operation of the document declares, or undefined. graphql-js reads
 * only the declared ones and ignores the rest, which a client can send by the thousand; a document declares at
 * most as many as its tokens allow. Any operation of the document counts, since tools such as GraphiQL send the
 * variables of every operation in their editor whichever one runs.
 */
function undeclaredVariable(document: DocumentNode, variableValues: Record<string, unknown> | null | undefined): string | undefined {
  if (!variableValues) return undefined;
  const declared = new Set<string>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION) for (const variable of definition.variableDefinitions ?? []) declared.add(variable.variable.name.value);
  }
  return Object.keys(variableValues).find((name) => !declared.has(name));
}

export interface Analysis {
  cost: number;
  mutationFields: number;
}

/**
 * The cost of the operation a request selects, from its document and variables, or the limit it breaks.
 * Returns null when the operation cannot be selected or its variables do not coerce: execution reports that.
 */
export function analyzeOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variableValues: Record<string, unknown> | null | undefined,
  context: object,
): Analysis | null {
  const undeclared = undeclaredVariable(document, variableValues);
  if (undeclared !== undefined) {
    const name = undeclared.length > 64 ? `${undeclared.slice(0, 64)}…` : undeclared;
    throw refusal('graphql.variable_undeclared', `The variables give $${printable(name)}, which no operation of the document declares.`);
  }
  const operation = selectedOperation(document, operationName);
  if (!operation) return null;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const counts: Counts = {
    aliases: countAliases(operation.selectionSet, fragments, new Map(), new Set()),
    mutationFields: operation.operation === 'mutation' ? countRootFields(operation.selectionSet, fragments, (name) => !name.startsWith('__')) : 0,
    schemas: operation.operation === 'query' ? countRootFields(operation.selectionSet, fragments, (name) => name === '__schema') : 0,
    types: operation.operation === 'query' ? countRootFields(operation.selectionSet, fragments, (name) => name === '__type') : 0,
  };
  if (counts.aliases > limits.maxAliases) {
    throw refusal('graphql.too_many_aliases', `The operation has more than ${limits.maxAliases} aliased fields (fragments counted in full).`);
  }
  // The document has passed validation; its cost is that of the selected operation alone (with the fragments it may use).
  let complexity: number;
  let depth: number;
  let bound: number;
  try {
    ({ complexity, depth } = complexityFromQuery(
      { kind: Kind.DOCUMENT, definitions: [operation, ...fragments.values()] },
      { schema, ctx: context, variables: variableValues ?? {} },
    ));
    bound = resultBound(schema, operation, fragments, variableValues ?? {}, context);
  } catch (error) {
    // Variables that do not coerce: execution answers them as a request error.
    if (error instanceof GraphQLError) return null;
    throw error;
  }
  if (depth > limits.maxDepth) throw refusal('graphql.depth_exceeded', `The selection is ${depth} levels deep; at most ${limits.maxDepth}.`);
  const cost = Math.ceil(complexity) + counts.mutationFields * limits.mutationPoints + counts.schemas * limits.schemaPoints + counts.types * limits.typePoints;
  if (cost > limits.maxCost) {
    throw refusal('graphql.cost_exceeded', `The operation costs ${cost} points; at most ${limits.maxCost}. Ask for smaller pages (limit) or fewer relations.`);
  }
  if (bound > limits.maxResultBound) {
    throw refusal(
      'graphql.result_too_large',
      `The answer could hold ${bound} characters (each field's longest value times the pages asked for); an operation that could hold more than ${limits.maxResultBound} does not run. Ask for smaller pages (first, limit) or fewer long text fields.`,
    );
  }
  return { cost, mutationFields: counts.mutationFields };
}

