import type { ResourceDefinition } from '../kernel/resource.ts';
import type { Scope } from '../kernel/scopes.ts';
import { resources } from './index.ts';
import { vocabulary } from '../kernel/vocabulary.ts';

// What the declarations add up to: the scope catalog, the resource classes that have lookups (statuses, labels,
// custom fields) and the statuses every account starts with. Nothing here is listed by hand except the modules
// below, which the API does not serve yet.

/**
 * Modules not yet served as resources whose names exist already: their scopes are in the catalog (the demo key and
 * every key made with all scopes hold them, so such keys keep working when the module lands). When a module
 * becomes a declared resource, remove it here.
 */
const modulesNotYetServed: readonly { scope: never }[] = [];

/** Every scope resource: `<resource>:read` and `<resource>:write` (kernel/scopes.ts types them). */
export const scopeResources = [...new Set([...resources.map((def) => def.scope), ...modulesNotYetServed.map((module) => module.scope)])];

declare module '../kernel/scopes.ts' {
  interface ScopeCatalog {
    names: (typeof scopeResources)[number];
  }
}

/**
 * Every scope: `<resource>:read` and `<resource>:write`, except the read scope of a nested resource (notes), whose
 * records are read with their parent's read scope (src/kernel/nesting.ts).
 */
export const allScopes: Scope[] = scopeResources.flatMap((resource) => {
  const declared = resources.filter((def) => def.scope === resource);
  return declared.length > 0 && declared.every((def) => def.nested) ? ([`${resource}:write`] as const) : ([`${resource}:read`, `${resource}:write`] as const);
});

export function isScope(value: string): value is Scope {
  return (allScopes as string[]).includes(value);
}

/** A resource with statuses, labels or custom fields (lookups are kept per resource class: related_name). */
const hasLookups = (def: ResourceDefinition) => Boolean(def.conventions.status || ((def.conventions.labels || def.conventions.customFields) && !def.conventions.lookupsOf));

/** The resource classes lookups belong to (`related_name`: Customer, Job ...). */
export const relatedNames: readonly string[] = vocabulary(
  'ResourceClass',
  resources.filter(hasLookups).map((def) => def.className),
  {
    description: 'A resource class with lookups (statuses, labels, custom fields), by its class name.',
    describe: (name) => `The ${name} class: lookups of ${name.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()} records.`,
  },
);

/** The statuses every account starts with, per resource class (the first is the status of a new record). */
export const defaultStatuses: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  resources.flatMap((def) => (def.conventions.status ? [[def.className, def.conventions.status.defaults] as const] : [])),
);
