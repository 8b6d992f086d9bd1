import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { DocumentBuilder } from './document-builder.ts';
import { unpaginatedListEnvelope, unpaginatedListExample } from './envelopes.ts';
import { shapeExample } from './examples.ts';
import { responseHeaders } from './headers.ts';
import { camel, words } from './naming.ts';
import { wireShapeSchema } from '../wire-shape-schema.ts';
import { z } from './zod.ts';
import { relatedNames, lookupKinds, type LookupKind } from '../../domain.ts';

// GET /statuses, /labels, /custom_field_definitions: one operation per lookup kind, its row the kind's wire shape.

/**
 * related_name, the one parameter of every lookup: a shared parameter component, its schema written inline (as the
 * list parameters') so that a reader finds the class names on the parameter itself.
 */
function relatedNameParameter(registry: OpenAPIRegistry) {
  registry.registerComponent('parameters', 'RelatedName', {
    name: 'related_name',
    in: 'query',
    schema: { type: 'string', enum: [...relatedNames] },
    description: 'Resource class whose rows to list; omitted: every class. Any other value or parameter: 400 filter.invalid.',
  });
  return { $ref: '#/components/parameters/RelatedName' };
}

export function registerLookupOperations({ registry, register, addOperation }: DocumentBuilder): void {
  const relatedName = relatedNameParameter(registry);
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
        parameters: [relatedName],
        scopes: [],
        ok: { 200: { description: `The ${words(kind)}.`, headers: responseHeaders(), content: { 'application/json': { schema: list } } } },
      },
    );
  }
}
