import type { ObjectRef } from '@pothos/core';
import type { Single } from '../../kernel/resource-service.ts';
import { outputFields, valueFieldOf, type ChildCollection, type ResourceDefinition } from '../../kernel/resource.ts';
import type { Builder, GraphQLContext } from './builder.ts';
import { collectionCost, connectionArgs, connectionType, type Page } from './connections.ts';
import { COLLECTION_DEFAULT_FIRST, slicePage, type SliceArgs } from '../../kernel/slice-page.ts';
import { exposeRecordField } from './record-source.ts';
import type { SharedTypes } from './shared-types.ts';
import { camelCase } from '../../kernel/naming.ts';
import { outputFieldText, resourceTexts } from './descriptions.ts';
import { graphqlType, servedFieldExtensions } from './field-types.ts';
import { childTypeName, type ChildTypes } from './child-types.ts';
import { hasAttachmentValues, withDownloadLinks } from '../../kernel/file-links.ts';

/** The backing value of a record type: the REST wire record and its ETag (every read gives both). */
export type RecordShape = Single;

/**
 * The object type of a resource, from its outputFields: a field per wire field, a connection per child
 * collection (over the entries of `childRefs`), and the record's etag. It implements Node.
 */
export function registerRecordType(builder: Builder, def: ResourceDefinition, shared: SharedTypes, childRefs: ReadonlyMap<ChildCollection, ChildTypes>): ObjectRef<any, RecordShape> {
  const typeName = def.className;
  // Pothos types field options by literal type names; these are computed from the declaration.
  type AnyOptions = never;

  return builder.objectRef<RecordShape>(typeName).implement({
    description: resourceTexts(def).type,
    interfaces: [shared.Node],
    fields: (t) => {
      const fields: Record<string, unknown> = {};
      for (const info of outputFields(def)) {
        const name = camelCase(info.name);
        const collection = info.children;
        const valueField = collection && valueFieldOf(collection);
        if (valueField) {
          // A list of values: the list as the record holds it (read with it when selected).
          exposeRecordField(name, info.name);
          fields[name] = t.field({ type: [graphqlType(valueField.spec.kind, builder, valueField.spec.enum)], description: outputFieldText(info) } as AnyOptions);
          continue;
        }
        if (info.name === 'custom_fields') {
          // Attachment values are served with their signed download link (src/kernel/file-links.ts), like REST's.
          fields[name] = t.field({
            type: graphqlType(info.kind, builder, info.enum),
            nullable: info.nullable,
            description: outputFieldText(info),
            resolve: (parent: RecordShape, _args: unknown, ctx: GraphQLContext) => {
              const values = parent.record.custom_fields;
              return hasAttachmentValues(values) ? ctx.domain.attachments.signer().then((sign) => withDownloadLinks(values, sign)) : values;
            },
          } as AnyOptions);
          continue;
        }
        fields[name] = collection
          ? // A child collection is a connection over the entries the record holds (read with it when selected).
            t.field({
              type: connectionType(builder, childRefs.get(collection)!.output, childTypeName(collection), collection.label, { totalCount: true }),
              description: outputFieldText(info),
              args: connectionArgs(t, COLLECTION_DEFAULT_FIRST),
              complexity: collectionCost,
              resolve: (parent: RecordShape, args: SliceArgs, ctx: GraphQLContext): Page<unknown> | Promise<Page<unknown>> => {
                const binding = { cursors: ctx.domain.cursors, account: ctx.principal.accountId, collection: `${typeName}.${name}`, parentId: String(parent.record.id) };
                return slicePage((parent.record[info.name] as unknown[] | undefined) ?? [], args, binding);
              },
            } as AnyOptions)
          : // Read as a property of the Single (record-source.ts): no resolver.
            (exposeRecordField(name, info.name),
            t.field({ type: graphqlType(info.kind, builder, info.enum), nullable: info.nullable, description: outputFieldText(info), extensions: servedFieldExtensions(info) } as AnyOptions));
      }
      fields.etag = t.field({ type: 'String', description: resourceTexts(def).etag } as AnyOptions);
      return fields as never;
    },
  });
}
