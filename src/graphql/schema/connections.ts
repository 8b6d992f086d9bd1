import type { ObjectRef } from '@pothos/core';
import type { GraphQLResolveInfo } from 'graphql';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../../kernel/listing.ts';
import { COLLECTION_DEFAULT_FIRST } from '../../kernel/slice-page.ts';
import type { ResourceDefinition } from '../../kernel/resource.ts';
import type { ReadOptions } from '../../kernel/resource-service.ts';
import type { Builder } from './builder.ts';
import { connectionTexts } from './descriptions.ts';
import { pageCost } from './cost.ts';
import { selectedRead } from './selection.ts';

// Connections as the GraphQL Cursor Connections spec has them, for every paginated field (the resources' lists
// and the collections below a record): `first`/`after` arguments, `edges { cursor node }`, the `nodes` shortcut
// and `pageInfo { hasNextPage hasPreviousPage startCursor endCursor }`. A cursor resumes after its edge, and
// endCursor is set whenever the page has items, so a client can always ask for what follows (an empty page with
// hasNextPage false at the end). Cursors are the kernel's signed cursors: a list's come from its keyset (the
// same as REST's, usable on either API), a collection's from its position (kernel/slice-page.ts). Paging is
// forward only: there is no last/before, and hasPreviousPage says whether `after` skipped anything.

/** The backing value of a connection: one page and how to make its cursors. */
export interface Page<T> {
  nodes: readonly T[];
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  cursorAt(index: number): Promise<string>;
  /** How many items the whole connection holds; only a connection that counts for free has it (connectionType's totalCount). */
  totalCount?: number;
}

interface Edge<T> {
  page: Page<T>;
  index: number;
}

/** The arguments of a connection field: `first` (1..100; default 25 for lists, 10 for a record's collections) and `after`. */
export function connectionArgs(t: any, defaultFirst: number = DEFAULT_LIMIT) {
  return {
    first: t.arg.int({ description: connectionTexts.first(MAX_LIMIT, defaultFirst) }),
    after: t.arg.string({ description: connectionTexts.after }),
  };
}

/** The cost of a list's connection field: the field, plus `first` (or its default) times one item's selection. */
export const connectionCost = pageCost(DEFAULT_LIMIT, 'first');

/** The same for a record's collection (default first: COLLECTION_DEFAULT_FIRST). */
export const collectionCost = pageCost(COLLECTION_DEFAULT_FIRST, 'first');

const pageInfos = new WeakMap<Builder, ObjectRef<any, Page<unknown>>>();

function pageInfoType(builder: Builder): ObjectRef<any, Page<unknown>> {
  const known = pageInfos.get(builder);
  if (known) return known;
  const ref = builder.objectRef<Page<unknown>>('PageInfo').implement({
    description: 'Where a page is in its connection: whether items come before and after it, and the cursors at its ends.',
    fields: (t) => ({
      hasNextPage: t.boolean({ description: connectionTexts.hasNextPage, resolve: (page) => page.hasNextPage }),
      hasPreviousPage: t.boolean({ description: connectionTexts.hasPreviousPage, resolve: (page) => page.hasPreviousPage }),
      startCursor: t.string({
        nullable: true,
        description: connectionTexts.startCursor,
        resolve: (page) => (page.nodes.length > 0 ? page.cursorAt(0) : null),
      }),
      endCursor: t.string({
        nullable: true,
        description: connectionTexts.endCursor,
        resolve: (page) => (page.nodes.length > 0 ? page.cursorAt(page.nodes.length - 1) : null),
      }),
    }),
  });
  pageInfos.set(builder, ref);
  return ref;
}

const made = new WeakMap<Builder, Map<string, ObjectRef<any, Page<any>>>>();

/**
 * The `<Type>Connection` type over a node type (made once per schema and name), with its `<Type>Edge`. With
 * `totalCount`, the connection serves how many items it holds: only for connections over items already in memory
 * (a record's collections), never a COUNT of a list (docs/decisions.md, GraphQL totalCount).
 */
export function connectionType<T>(builder: Builder, node: ObjectRef<any, T>, typeName: string, noun: string, options: { totalCount?: boolean } = {}): ObjectRef<any, Page<T>> {
  const refs = made.get(builder) ?? made.set(builder, new Map()).get(builder)!;
  const known = refs.get(typeName);
  if (known) return known;
  const edge = builder.objectRef<Edge<T>>(`${typeName}Edge`).implement({
    description: connectionTexts.edge(noun),
    fields: (t) => ({
      cursor: t.string({ description: connectionTexts.edgeCursor, resolve: (e) => e.page.cursorAt(e.index) }),
      node: t.field({ type: node, description: connectionTexts.edgeNode(noun), resolve: (e) => e.page.nodes[e.index] as never }),
    }),
  });
  const ref = builder.objectRef<Page<T>>(`${typeName}Connection`).implement({
    description: `A page of ${noun}s.`,
    fields: (t) => ({
      // The connection field's first multiplies these selections (connectionCost): each item costs 1 plus its own.
      edges: t.field({
        type: [edge],
        complexity: { field: 1, multiplier: 1 },
        description: connectionTexts.edges(`${noun}s`),
        resolve: (page) => page.nodes.map((_, index) => ({ page, index })),
      }),
      nodes: t.field({ type: [node], complexity: { field: 1, multiplier: 1 }, description: connectionTexts.nodes(`${noun}s`), resolve: (page) => [...page.nodes] }),
      pageInfo: t.field({ type: pageInfoType(builder), complexity: 0, description: connectionTexts.pageInfo, resolve: (page) => page }),
      ...(options.totalCount ? { totalCount: t.int({ complexity: 0, description: connectionTexts.totalCount(`${noun}s`), resolve: (page) => totalOf(page, typeName) }) } : {}),
    }),
  });
  refs.set(typeName, ref);
  return ref;
}

/** The totalCount of a page of a connection that counts (its pages are the kernel's SlicedPage, which always do). */
function totalOf(page: Page<unknown>, typeName: string): number {
  if (page.totalCount === undefined) throw new Error(`${typeName}Connection: a page without its totalCount`);
  return page.totalCount;
}

/** What a read of `def` serves for a connection's selection, under nodes and under edges.node (selectedRead). */
export function pageRead(def: ResourceDefinition, info: GraphQLResolveInfo): ReadOptions {
  return selectedRead(def, info, PAGE_ITEMS);
}

/** Where a connection's selection holds its items. */
const PAGE_ITEMS: readonly (readonly string[])[] = [['nodes'], ['edges', 'node']];
