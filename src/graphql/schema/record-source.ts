import { ChildEntry } from '../../kernel/record-serialization.ts';
import { Single } from '../../kernel/resource-service.ts';

// How GraphQL reads records. The source object of every record type is the kernel's Single ({ record, etag }); its
// own fields are read as properties: each GraphQL name of a served field is a getter on Single's prototype that
// returns that field of the wire record (siteName -> record.site_name), and etag is Single's own property. So the
// record types' leaf fields need no resolver, which lets graphql-jit read them inline (a resolver call costs a
// resolve info and a path object per field per row: most of what a board of a thousand jobs allocated). The
// wire name of a GraphQL name is the same in every resource (camelCase of the snake_case name), so one prototype
// serves them all. Child entries (a job's lines) are read the same way through ChildEntry's prototype.

const exposed = new Map<string, string>();

/** Makes `graphqlName` read `record[wire]` on every Single; the same name always reads the same wire field. */
export function exposeRecordField(graphqlName: string, wire: string): void {
  if (!claim(exposed, graphqlName, wire, Single.prototype, ['record', 'etag'])) return;
  Object.defineProperty(Single.prototype, graphqlName, {
    get(this: Single) {
      return this.record[wire];
    },
  });
}

const exposedEntries = new Map<string, string>();

/**
 * Makes `graphqlName` read the entry's `wire` field on every child entry (ChildEntry), for a name that is not the
 * wire name itself (unitPrice -> unit_price; a one-word name is the entry's own property already).
 */
export function exposeEntryField(graphqlName: string, wire: string): void {
  if (graphqlName === wire || !claim(exposedEntries, graphqlName, wire, ChildEntry.prototype, [])) return;
  Object.defineProperty(ChildEntry.prototype, graphqlName, {
    get(this: ChildEntry) {
      return this[wire];
    },
  });
}

/** Whether `graphqlName` still has to be defined (false: it already reads `wire`); throws when it reads something else. */
function claim(known: Map<string, string>, graphqlName: string, wire: string, prototype: object, own: string[]): boolean {
  const current = known.get(graphqlName);
  if (current === wire) return false;
  if (current !== undefined || graphqlName in prototype || own.includes(graphqlName)) {
    throw new Error(`field ${graphqlName}: already read as ${current ?? 'another property'}, cannot read ${wire}`);
  }
  known.set(graphqlName, wire);
  return true;
}

const typenames = new WeakMap<Single, string>();

/** Marks a record reached through a union or an interface (node, a polymorphic relation) with its type's name. */
export function withTypename(single: Single, typename: string): Single {
  typenames.set(single, typename);
  return single;
}

/** The type name given by withTypename. */
export function typenameOf(single: Single): string | undefined {
  return typenames.get(single);
}
