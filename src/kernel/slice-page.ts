import type { CursorCodec } from './cursor.ts';
import { AppError } from './errors.ts';
import { pageSize } from './list-parameters.ts';
import { MAX_LIMIT } from './listing.ts';

// Pages of a collection that is read whole (a record's line items, a parent's linkages, the sites of a customer
// as one batch reads them): `first` items after the cursor `after`. The cursor is the kernel's signed cursor,
// bound to the collection of one parent (`collection`, e.g. "Customer.jobs", and the parent's id) and the
// account, with the same codes as a list's: cursor.invalid, cursor.expired; its position is an offset, which is
// right for these short collections in a stable order.


/** The page size of a collection when `first` is not given (lists: DEFAULT_LIMIT); small, as these sit inside pages. */
export const COLLECTION_DEFAULT_FIRST = 10;

export interface SliceArgs {
  first?: number | null;
  after?: string | null;
}

export interface SliceBinding {
  cursors: CursorCodec;
  account: string;
  /** What the cursor is valid for: "Customer.jobs". */
  collection: string;
  parentId: string;
}

export interface SliceBounds {
  offset: number;
  first: number;
}

/**
 * How many items a page needs read (the offset of `after` plus `first`), so a reader can stop there. Without
 * `after` the answer is immediate (a board serves a thousand first pages per request), with it a promise (the
 * cursor's signature is checked).
 */
export function sliceBounds(args: SliceArgs, binding: SliceBinding): SliceBounds | Promise<SliceBounds> {
  const first = args.first === undefined || args.first === null ? COLLECTION_DEFAULT_FIRST : pageSize(args.first, MAX_LIMIT);
  if (args.after === undefined || args.after === null) return { offset: 0, first };
  return binding.cursors.decode(args.after, { resource: binding.collection, account: binding.account, fingerprint: binding.parentId }).then((payload) => {
    if (typeof payload.v !== 'number' || !Number.isInteger(payload.v) || payload.v < 0 || payload.id !== binding.parentId) {
      throw new AppError('cursor.invalid', 'The cursor cannot be decoded; pass back the cursor of the previous page verbatim.');
    }
    return { offset: payload.v, first };
  });
}

/** The page of `items` (the whole collection, or at least its first offset + first + 1 items) that args ask for; immediate without `after`. */
export function slicePage<T>(items: readonly T[], args: SliceArgs, binding: SliceBinding): SlicedPage<T> | Promise<SlicedPage<T>> {
  const bounds = sliceBounds(args, binding);
  return bounds instanceof Promise ? bounds.then((read) => cutPage(items, read, binding)) : cutPage(items, bounds, binding);
}

/**
 * A page of a collection: its items and where it sits. Its cursors are signed when asked for (most selections ask
 * for none), each once; the page holds no closures, as a board makes two thousand of them per request.
 */
export class SlicedPage<T> {
  private cursors: Map<number, Promise<string>> | undefined;

  constructor(
    /** The items of the page. */
    readonly nodes: T[],
    readonly hasNextPage: boolean,
    readonly hasPreviousPage: boolean,
    private readonly offset: number,
    private readonly binding: SliceBinding,
    /** How many items the whole collection holds (it is in memory: counting it costs nothing). */
    readonly totalCount: number,
  ) {}

  /** The cursor that resumes the collection after the item at `index` of nodes. */
  cursorAt(index: number): Promise<string> {
    this.cursors ??= new Map();
    let cursor = this.cursors.get(index);
    if (!cursor) {
      const { cursors, collection, account, parentId } = this.binding;
      cursor = cursors.encode({ r: collection, a: account, s: 'offset', d: 'asc', v: this.offset + index + 1, id: parentId, f: parentId });
      this.cursors.set(index, cursor);
    }
    return cursor;
  }

  /** The same page serving other values for its items (a relation's records for its entries). */
  withNodes<U>(nodes: U[]): SlicedPage<U> {
    return new SlicedPage(nodes, this.hasNextPage, this.hasPreviousPage, this.offset, this.binding, this.totalCount);
  }
}

/** The page of `items` at bounds already read from the arguments (sliceBounds). */
export function cutPage<T>(items: readonly T[], { offset, first }: SliceBounds, binding: SliceBinding): SlicedPage<T> {
  return new SlicedPage(items.slice(offset, offset + first), items.length > offset + first, offset > 0, offset, binding, items.length);
}
