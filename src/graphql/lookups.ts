import { lookupKinds, type LookupKind } from '../resources/lookups/lookup.service.ts';
import { requestContext, type Builder } from './builder.ts';
import { camelCase } from './naming.ts';
import { wireObject, type WireField } from './wire-object.ts';

const position: WireField = { wire: 'position', type: 'Int', description: 'Order within the resource class.' };
const relatedName: WireField = { wire: 'related_name', type: 'String', description: 'Resource class: Customer, Job, Estimate ...' };
const timestamps: WireField[] = [
  { wire: 'created_at', type: 'DateTime' },
  { wire: 'updated_at', type: 'DateTime' },
];

// One GraphQL type per lookup catalog; the field lists are those of lookupKinds (checked at build time).
const lookupTypes: Record<LookupKind, { typeName: string; description: string; fields: WireField[] }> = {
  statuses: {
    typeName: 'Status',
    description: 'A live status a record of the resource class may take (status fields hold its displayName).',
    fields: [{ wire: 'id', type: 'ID' }, relatedName, { wire: 'display_name', type: 'String' }, position, ...timestamps],
  },
  labels: {
    typeName: 'Label',
    description: 'A label records of the resource class may carry (labels hold displayName values).',
    fields: [{ wire: 'id', type: 'ID' }, relatedName, { wire: 'display_name', type: 'String' }, position, ...timestamps],
  },
  custom_field_definitions: {
    typeName: 'CustomFieldDefinition',
    description: 'A custom field of the resource class; its id keys customFields.',
    fields: [
      { wire: 'id', type: 'ID' },
      relatedName,
      { wire: 'name', type: 'String' },
      { wire: 'field_type', type: 'String', description: 'text, number, date, checkbox, select, multiselect or attachment.' },
      { wire: 'options', type: ['String'], description: 'Choices of select and multiselect fields.' },
      { wire: 'required', type: 'Boolean' },
      position,
      ...timestamps,
    ],
  },
};

/** statuses, labels, customFieldDefinitions (relatedName): as the REST lookups; any valid key may read them. */
export function registerLookups(builder: Builder): void {
  for (const kind of Object.keys(lookupKinds) as LookupKind[]) {
    const { typeName, description, fields } = lookupTypes[kind];
    const declared = fields.map((f) => f.wire).join(',');
    if (declared !== lookupKinds[kind].fields.join(',')) throw new Error(`GraphQL ${typeName} fields differ from the ${kind} lookup`);
    const ref = wireObject(builder, typeName, description, fields);
    builder.queryField(camelCase(kind), (t) =>
      t.field({
        type: [ref],
        nullable: true,
        description: `As GET /api/v2/${kind}: live entries ordered by related name and position. Needs a valid key only.`,
        authScopes: { authenticated: true },
        args: { relatedName: t.arg.string({ description: 'Only this resource class (Customer, Job ...); filter.invalid when unknown.' }) },
        resolve: async (_root, args, ctx) => {
          const entries: [string, string][] = args.relatedName === null || args.relatedName === undefined ? [] : [['related_name', args.relatedName]];
          return (await ctx.domain.lookups.list(requestContext(ctx), kind, entries)).data;
        },
      }),
    );
  }
}
