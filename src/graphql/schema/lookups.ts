import { requestContext, type Builder } from './builder.ts';
import { camelCase } from '../../kernel/naming.ts';
import { vocabularyEnum } from './vocabularies.ts';
import { wireObject } from './wire-object.ts';
import { systemOptionShape, webhookTopicShape, lookupKinds, type LookupKind, relatedNames } from '../../domain.ts';

/**
 * statuses, labels, customFieldDefinitions (relatedName) and systemOptions (systemType): as the REST lookups,
 * through the same LookupService; any valid key may read them.
 */
export function registerLookups(builder: Builder): void {
  for (const kind of Object.keys(lookupKinds) as LookupKind[]) {
    const ref = wireObject(builder, lookupKinds[kind].shape);
    builder.queryField(camelCase(kind), (t) =>
      t.field({
        type: [ref],
        nullable: true,
        description: `The live ${kind.replace(/_/g, ' ')} of the account, by resource class (relatedName) then position; not paginated. Any valid key may read them.`,
        authScopes: { authenticated: true },
        args: { relatedName: t.arg({ type: vocabularyEnum(builder, relatedNames)!, description: 'Only the entries of this resource class.' }) },
        resolve: async (_root, args, ctx) => {
          return (await ctx.domain.lookups.list(requestContext(ctx), kind, { relatedName: args.relatedName ?? undefined })).data as never;
        },
      }),
    );
  }

  builder.queryField('availableWebhookTopics', (t) =>
    t.field({
      type: [wireObject(builder, webhookTopicShape)],
      nullable: true,
      description: 'The topics this key can subscribe to now (webhook endpoints, the `events` subscription), by name, with what each means. Needs webhooks:read.',
      authScopes: { scope: 'webhooks:read' },
      resolve: (_root, _args, ctx) => ctx.domain.webhooks.availableTopics(requestContext(ctx)),
    }),
  );

  builder.queryField('systemOptions', (t) =>
    t.field({
      type: [wireObject(builder, systemOptionShape)],
      nullable: true,
      description: 'The system options catalog, shared by every account and read-only, by position then name; not paginated. Any valid key may read it.',
      authScopes: { authenticated: true },
      args: { systemType: t.arg.string({ description: 'Only the options of this system type (HVAC, Plumbing ...).' }) },
      resolve: async (_root, args, ctx) => {
        return (await ctx.domain.lookups.systemOptions({ systemType: args.systemType ?? undefined })).data;
      },
    }),
  );
}
