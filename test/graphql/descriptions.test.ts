import {
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isObjectType,
  isSpecifiedScalarType,
  isUnionType,
  type GraphQLNamedType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { topics } from '../../src/events/topics.ts';
import { errorCatalog } from '../../src/kernel/errors.ts';
import { buildSchema } from '../../src/graphql/schema/schema.ts';
import { allScopes } from '../../src/resources/catalog.ts';

// The schema is read by app developers and agents: every type, field, argument, input field and enum value has
// a description, written for GraphQL readers. Descriptions come from the declarations (their `{wire_name}`
// markers are rendered as GraphQL names, src/kernel/api-text.ts) and from src/graphql/schema/descriptions.ts.

/** Every described element of the schema with its description, named as a reader would: Type.field(arg). */
function describedElements(): { where: string; description: string | null | undefined }[] {
  const out: { where: string; description: string | null | undefined }[] = [];
  for (const type of Object.values(buildSchema().getTypeMap()) as GraphQLNamedType[]) {
    if (isIntrospectionType(type) || isSpecifiedScalarType(type)) continue;
    out.push({ where: type.name, description: type.description });
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        out.push({ where: `${type.name}.${field.name}`, description: field.description });
        for (const arg of field.args) out.push({ where: `${type.name}.${field.name}(${arg.name})`, description: arg.description });
      }
    } else if (isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) out.push({ where: `${type.name}.${field.name}`, description: field.description });
    } else if (isEnumType(type)) {
      for (const value of type.getValues()) out.push({ where: `${type.name}.${value.name}`, description: value.description });
    } else if (isUnionType(type)) {
      // A union has no fields of its own: its description is checked above.
    }
  }
  return out;
}

/**
 * Values that are the same on both APIs and may appear as they are: scopes (`tax_rates:read`), error codes
 * (`auth.scope_missing`) and event topics (`job.status_changed`), which a GraphQL client meets as strings (a
 * webhook endpoint's topics, availableWebhookTopics), and the `type` of the verification handshake a webhook
 * receiver is sent (src/resources/webhooks/verification.ts), which is the same whichever API registered the endpoint.
 */
const values = [...allScopes, ...Object.keys(errorCatalog), ...topics().map((topic) => topic.name), 'webhook_endpoint.verification'].sort((a, b) => b.length - a.length);
const withoutValues = (text: string) => values.reduce((rest, value) => rest.split(value).join('<value>'), text);

/** A word that is "a" before a vowel sound (not "a user", "a unit", "a UUID", "a one-off"). */
const aBeforeVowel = /\b[Aa] (?!(?:u(?:n[aeiou]|ni|s[aeiou]|r[aeiou]|biq)|eu|one|UUID|URL|UTC)\w*)[aeiouAEIOU]\w*/;

/** REST words a GraphQL description must not use, with why. */
const restTerms: { pattern: RegExp; why: string }[] = [
  { pattern: /\b[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]*\b/, why: 'a snake_case name (GraphQL names are camelCase)' },
  { pattern: /\b(GET|POST|PATCH|PUT|DELETE)\b/, why: 'an HTTP method' },
  { pattern: /If-Match/i, why: 'an HTTP header (the argument is ifMatch)' },
  { pattern: /\/api\/v2/, why: 'a REST path' },
  { pattern: /\{[a-z][a-z0-9_.]*\}/, why: 'an unrendered field marker' },
  { pattern: aBeforeVowel, why: '"a" before a vowel sound' },
];

describe('GraphQL descriptions', () => {
  const elements = describedElements();

  it('describe every type, field, argument, input field and enum value', () => {
    const missing = elements.filter(({ description }) => !description?.trim()).map(({ where }) => where);
    expect(missing, `${missing.length} elements without a description:\n${missing.join('\n')}`).toEqual([]);
  });

  it('are written for GraphQL readers: no snake_case names, HTTP methods, headers, REST paths or "a" before a vowel', () => {
    const wrong = elements.flatMap(({ where, description }) => {
      if (!description) return [];
      const text = withoutValues(description);
      return restTerms.filter(({ pattern }) => pattern.test(text)).map(({ pattern, why }) => `${where}: ${why} ("${text.match(pattern)![0]}") in: ${description}`);
    });
    expect(wrong, `${wrong.length} descriptions in REST terms:\n${wrong.join('\n')}`).toEqual([]);
  });

  it('checks what it claims (a snake_case name, a method and a header are caught; scopes, codes and topics are values)', () => {
    const caught = (text: string) => restTerms.some(({ pattern }) => pattern.test(withoutValues(text)));
    expect(caught('Must belong to customer_id.')).toBe(true);
    expect(caught('As POST /customers.')).toBe(true);
    expect(caught('Send it in If-Match.')).toBe(true);
    expect(caught('Creates a estimate.')).toBe(true);
    expect(caught('Needs tax_rates:read; refused with auth.scope_missing.')).toBe(false);
    expect(caught('Delivers job.status_changed and webhook_endpoint.test events.')).toBe(false);
    expect(caught('Delivers webhook_endpoint events.')).toBe(true);
    expect(caught('Creates an estimate for a user, a unit price or a UUID.')).toBe(false);
  });

  it('serve the three always-set fields as non-null', () => {
    const schema = buildSchema();
    const field = (type: string, name: string) => (schema.getType(type) as { getFields(): Record<string, { type: { toString(): string } }> }).getFields()[name]!.type.toString();
    expect(field('Lineitem', 'taxable')).toBe('Boolean!');
    expect(field('TaxRate', 'active')).toBe('Boolean!');
    expect(field('Site', 'position')).toBe('Int!');
  });
});
