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

// A resource's names follow from its noun (ResourceDefinition.name, snake_case singular): plural path segment,
// table and scope `customers`, class `Customer`, Prisma delegate `customer`. The types below give the same
// answers as the functions, so a declaration that writes only its noun keeps literal names (scopes are typed
// from them) and a model the Prisma client lacks does not compile.

/** `sales_order` -> `salesOrder` (a type). */
export type CamelCase<Name extends string> = Name extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : Name;

type Vowel = 'a' | 'e' | 'i' | 'o' | 'u';

/** English plural of a snake_case noun: category -> categories, day -> days, tax -> taxes, job -> jobs (a type). */
export type PluralOf<Name extends string> = Name extends `${infer Stem}y`
  ? Stem extends `${string}${Vowel}`
    ? `${Name}s`
    : `${Stem}ies`
  : Name extends `${string}${'s' | 'x' | 'z' | 'ch' | 'sh'}`
    ? `${Name}es`
    : `${Name}s`;

/** The plural of a snake_case noun, as PluralOf spells it. */
export function pluralOf(name: string): string {
  if (/[^aeiou]y$/.test(name)) return `${name.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/.test(name)) return `${name}es`;
  return `${name}s`;
}
