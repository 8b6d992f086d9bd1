import { relatedNames } from '../../resources/catalog.ts';
import { lookupKinds, type LookupKind } from '../../resources/lookups/lookup.service.ts';
import type { DocumentBuilder } from './document-builder.ts';
import { unpaginatedListEnvelope, unpaginatedListExample } from './envelopes.ts';
import { shapeExample } from './examples.ts';
import { responseHeaders } from './headers.ts';
import { camel, words } from './naming.ts';
import { wireShapeSchema } from '../wire-shape-schema.ts';
import { z } from './zod.ts';

// GET /statuses, /labels, /custom_field_definitions: one operation per lookup kind, its row the kind's wire shape.

function lookupQuerySchema(): z.ZodObject {
  return z
    .object({
      related_name: z
        .enum(relatedNames)
        .optional()
        .openapi({ param: { description: 'Resource class whose rows to list; omitted: every class. Any other value or parameter: 400 filter.invalid.' } }),
    })
    .strict();
}

export function registerLookupOperations({ register, addOperation }: DocumentBuilder): void {
  for (const kind of Object.keys(lookupKinds) as LookupKind[]) {
    const { shape } = lookupKinds[kind];
    const name = shape.name;
    const row = register(name, wireShapeSchema(shape));
    const list = register(`${name}List`, unpaginatedListEnvelope(z.array(row), 'lookups are not paginated'), unpaginatedListExample(shapeExample(shape)));
    addOperation(
      { kind: 'lookup' },
      {
        method: 'get',
        path: `/${kind}`,
        operationId: camel(`list_${kind}`),
        tags: ['Lookups'],
        summary: `List ${words(kind)}`,
        description: `Live ${words(kind)} of the account, filtered by related_name, ordered by related_name and position. Not paginated: has_more is always false, next_cursor always null.`,
        request: { query: lookupQuerySchema() },
        scopes: [],
        ok: { 200: { description: `The ${words(kind)}.`, headers: responseHeaders(), content: { 'application/json': { schema: list } } } },
      },
    );
  }
}
