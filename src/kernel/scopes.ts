import type { scopeResources } from '../resources/catalog.ts';

// The scope catalog: <resource>:read and <resource>:write. A write scope implies the read scope of the same
// resource only. The resource names come from the declarations' `scope` (src/resources/catalog.ts, which holds
// the runtime list, allScopes); this module only types them, so scope strings in src/ are checked by TypeScript.

export type ScopeResource = (typeof scopeResources)[number];
export type Scope = `${ScopeResource}:${'read' | 'write'}`;

export function grants(granted: readonly string[], required: Scope): boolean {
  if (granted.includes(required)) return true;
  const [resource, access] = required.split(':');
  return access === 'read' && granted.includes(`${resource}:write`);
}
