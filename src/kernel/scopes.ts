// The scope catalog: <resource>:read and <resource>:write. A write scope implies the read scope of the same
// resource only. The resource names come from the declarations' `scope`: src/resources/catalog.ts holds the runtime
// list (allScopes) and names its type here (ScopeCatalog, below), so scope strings in src/ are checked by
// TypeScript while the kernel imports nothing above it.

/** Filled in by src/resources/catalog.ts: `names` is the union of the declared scope resources. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ScopeCatalog {}

export type ScopeResource = ScopeCatalog extends { names: infer Names extends string } ? Names : string;
export type Scope = `${ScopeResource}:${'read' | 'write'}`;

export function grants(granted: readonly string[], required: Scope): boolean {
  if (granted.includes(required)) return true;
  const [resource, access] = required.split(':');
  return access === 'read' && granted.includes(`${resource}:write`);
}
