import type { ObjectRef } from '@pothos/core';
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

/** An entry of the system options catalog, as LookupService.systemOptions serves it (GET /system_options). */
export interface WireSystemOption {
  id: string;
  system_type: string;
  name: string;
  position: number;
}

const systemOptionTypes = new WeakMap<Builder, ObjectRef<any, WireSystemOption>>();

/** The SystemOption type of this schema (made on first use: the query here and the relations in work.ts share it). */
export function systemOptionType(builder: Builder): ObjectRef<any, WireSystemOption> {
  let ref = systemOptionTypes.get(builder);
  if (!ref) {
    ref = wireObject<WireSystemOption>(
      builder,
      'SystemOption',
      "An entry of the shared, read-only system options catalog (a system's or site's systemOptionId).",
      [
        { wire: 'id', type: 'ID' },
        { wire: 'system_type', type: 'String', description: 'Kind of equipment, e.g. HVAC.' },
        { wire: 'name', type: 'String' },
        { wire: 'position', type: 'Int', description: 'Order within the catalog.' },
      ],
    );
    systemOptionTypes.set(builder, ref);
  }
  return ref;
}

/**
 * statuses, labels, customFieldDefinitions (relatedName) and systemOptions (systemType): as the REST lookups,
 * through the same LookupService; any valid key may read them.
 */
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

  builder.queryField('systemOptions', (t) =>
    t.field({
      type: [systemOptionType(builder)],
      nullable: true,
      description: 'As GET /api/v2/system_options: the catalog shared by every account, read-only, by position then name. Needs a valid key only.',
      authScopes: { authenticated: true },
      args: { systemType: t.arg.string({ description: 'Only entries of this system type (HVAC, Plumbing ...).' }) },
      resolve: async (_root, args, ctx) => {
        const entries: [string, string][] = args.systemType === null || args.systemType === undefined ? [] : [['system_type', args.systemType]];
        return (await ctx.domain.lookups.systemOptions(entries)).data as unknown as WireSystemOption[];
      },
    }),
  );
}
