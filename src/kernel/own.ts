/**
 * A declared entry by a name the client chose (a body field, a sort field, a filter): own properties only, so
 * "constructor", "toString" or "__proto__" are unknown names rather than what every object inherits.
 */
export function own<T>(declared: Record<string, T> | undefined, name: string): T | undefined {
  return declared !== undefined && Object.hasOwn(declared, name) ? declared[name] : undefined;
}
