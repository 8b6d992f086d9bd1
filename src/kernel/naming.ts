// GraphQL names are derived from the REST wire names, never written twice: snake_case wire fields become
// camelCase GraphQL fields (main_phone -> mainPhone), resource classes and stems become PascalCase type
// names. Field-error keys of validation.failed go through the same function, per dotted segment, so
// `custom_fields.<definition id>` becomes `customFields.<definition id>`.

export function camelCase(wire: string): string {
  return wire.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

export function pascalCase(wire: string): string {
  const camel = camelCase(wire);
  return camel.charAt(0).toUpperCase() + camel.slice(1);
}

/** createdAt -> created_at; a wire name stays as it is. */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** camelCase for each dotted segment that is a snake_case identifier; ids and other segments are kept. */
export function camelPath(key: string): string {
  return key
    .split('.')
    .map((segment) => (/^[a-z][a-z0-9_]*$/.test(segment) ? camelCase(segment) : segment))
    .join('.');
}
