// The scope catalog: <resource>:read and <resource>:write. A write scope implies the read scope of the same
// resource only. New resources add their name here.
export const scopeResources = [
  'customers',
  'sites',
  'contacts',
  'leads',
  'jobs',
  'estimates',
  'invoices',
  'items',
  'tax_rates',
  'systems',
  'payments',
  'webhooks',
] as const;

export type ScopeResource = (typeof scopeResources)[number];
export type Scope = `${ScopeResource}:${'read' | 'write'}`;

export const allScopes: Scope[] = scopeResources.flatMap((r) => [`${r}:read`, `${r}:write`] as Scope[]);

export function isScope(value: string): value is Scope {
  return (allScopes as string[]).includes(value);
}

export function grants(granted: readonly string[], required: Scope): boolean {
  if (granted.includes(required)) return true;
  const [resource, access] = required.split(':');
  return access === 'read' && granted.includes(`${resource}:write`);
}
