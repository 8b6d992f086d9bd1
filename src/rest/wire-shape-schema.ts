import type { WireField, WireKind, WireShape } from '../kernel/wire-shape.ts';
import { docText } from './openapi/doc-text.ts';
import { timestamp, uuid } from './openapi/field-schemas.ts';
import { z } from './openapi/zod.ts';

// The OpenAPI schema of a wire shape (src/kernel/wire-shape.ts): the same fields, kinds, enums and descriptions
// the serializer's type and the GraphQL object come from. Nested shapes are inline objects.

const kindSchemas: Record<WireKind, () => z.ZodType> = {
  string: () => z.string(),
  email: () => z.string().openapi({ format: 'email' }),
  uuid,
  datetime: timestamp,
  integer: () => z.number().int(),
  number: () => z.number(),
  int64: () => z.number().int().openapi({ format: 'int64' }),
  boolean: () => z.boolean(),
  'string[]': () => z.array(z.string()),
  json: () => z.record(z.string(), z.unknown()),
};

function fieldSchema(field: WireField): z.ZodType {
  let schema: z.ZodType;
  if (typeof field.kind !== 'string') schema = shapeObject(field.kind);
  else if (field.enum && field.kind === 'string[]') schema = z.array(z.enum(field.enum as [string, ...string[]]));
  else if (field.enum) schema = z.enum(field.enum as [string, ...string[]]);
  else if (field.values) schema = z.object(Object.fromEntries(Object.entries(field.values).map(([key, values]) => [key, z.enum(values as [string, ...string[]])])));
  else schema = kindSchemas[field.kind]();
  if (field.nullable) schema = schema.nullable();
  return field.description ? schema.openapi({ description: docText(field.description) }) : schema;
}

function shapeObject(shape: WireShape): z.ZodObject {
  return z.object(Object.fromEntries(Object.entries(shape.fields).map(([name, field]) => [name, fieldSchema(field)])));
}

/** The component of a shape: its object with the shape's description. */
export function wireShapeSchema(shape: WireShape): z.ZodObject {
  return shapeObject(shape).openapi({ description: docText(shape.description) });
}
