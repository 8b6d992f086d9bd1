import type { ObjectRef } from '@pothos/core';
import type { Builder } from './builder.ts';
import { camelCase } from './naming.ts';

// Object types over records that services already shaped for the REST wire (me, lookups): each GraphQL field
// is the camelCase name of a wire field and resolves to that field, so both APIs serve the same content.

export type WireFieldType = 'String' | 'Int' | 'Boolean' | 'ID' | 'SafeInt' | 'DateTime' | 'JSON' | ['String'] | ObjectRef<any, any>;

export interface WireField {
  wire: string;
  type: WireFieldType;
  nullable?: boolean;
  description?: string;
}

export function wireObject<Shape extends object>(builder: Builder, name: string, description: string, fields: WireField[]): ObjectRef<any, Shape> {
  return builder.objectRef<Shape>(name).implement({
    description,
    fields: (t) =>
      Object.fromEntries(
        fields.map((field) => [
          camelCase(field.wire),
          t.field({
            type: field.type,
            nullable: field.nullable ?? false,
            description: field.description,
            resolve: (parent: Shape) => (parent as Record<string, unknown>)[field.wire],
          } as never),
        ]),
      ) as never,
  });
}
