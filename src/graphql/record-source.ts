import { Single } from '../kernel/resource-service.ts';

// How GraphQL reads records. The source object of every record type is the kernel's Single ({ record, etag }); its
// own fields are read as properties: each GraphQL name of a served field is a getter on Single's prototype that
// returns that field of the wire record (siteName -> record.site_name), and etag is Single's own property. So the
// record types' leaf fields need no resolver, which lets graphql-jit read them inline (a resolver call costs a
// resolve info and a path object per field per row: most of what a board of a thousand jobs allocated). The
// wire name of a GraphQL name is the same in every resource (camelCase of the snake_case name), so one prototype
// serves them all.

const exposed = new Map<string, string>();

/** Makes `graphqlName` read `record[wire]` on every Single; the same name always reads the same wire field. */
export function exposeRecordField(graphqlName: string, wire: string): void {
  const known = exposed.get(graphqlName);
  if (known === wire) return;
  if (known !== undefined || graphqlName in Single.prototype || graphqlName === 'record' || graphqlName === 'etag') {
    throw new Error(`record field ${graphqlName}: already read as ${known ?? 'a property of Single'}, cannot read ${wire}`);
  }
  exposed.set(graphqlName, wire);
  Object.defineProperty(Single.prototype, graphqlName, {
    get(this: Single) {
      return this.record[wire];
    },
    enumerable: false,
    configurable: false,
  });
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
