import type { ObjectRef } from '@pothos/core';
import { Single } from '../../kernel/resource-service.ts';
import { serves, type ResourceDefinition } from '../../kernel/resource.ts';
import type { Scope } from '../../kernel/scopes.ts';
import { requestContext, type Builder, type GraphQLContext } from './builder.ts';
import { written } from './loaders.ts';
import { payloadOf, type UserError } from './user-errors.ts';
import type { SharedTypes } from './shared-types.ts';
import { camelCase } from '../../kernel/naming.ts';
import { resourceTexts } from './descriptions.ts';
import { recordInput } from './write-input.ts';
import { recordValues } from './write-body.ts';
import { idempotentCreate } from './idempotent-create.ts';
import type { RecordShape } from './record-type.ts';

/**
 * The mutations a resource serves: create<Class> (with an idempotency key for a financial create),
 * update<Class> and delete<Class>, with the <Class>Payload of create and update and their inputs.
 */
export function registerResourceMutations(builder: Builder, def: ResourceDefinition, shared: SharedTypes, recordRef: ObjectRef<any, RecordShape>) {
  const typeName = def.className;
  const writeScope = `${def.scope}:write` as Scope;
  const service = (ctx: GraphQLContext) => ctx.domain.resource(def.name);

  // The payload of create and update, made only when the resource serves one of them.
  let payload: ObjectRef<any, Partial<Single> & { userErrors: UserError[] }> | undefined;
  const payloadRef = () => (payload ??= builder.objectRef<Partial<Single> & { userErrors: UserError[] }>(`${typeName}Payload`).implement({
    description: resourceTexts(def).payload,
    fields: (t) => ({
      [camelCase(def.name)]: t.field({
        type: recordRef,
        nullable: true,
        description: resourceTexts(def).payloadRecord,
        resolve: (parent) => (parent.record ? new Single(parent.record, parent.etag!) : null),
      }),
      etag: t.string({ nullable: true, description: resourceTexts(def).payloadEtag, resolve: (parent) => parent.etag ?? null }),
      userErrors: shared.userErrorsField(t),
    }),
  }));

  const inputRef = (mode: 'create' | 'update') =>
    recordInput(builder, def, `${mode === 'create' ? 'Create' : 'Update'}${typeName}Input`, mode, resourceTexts(def)[mode === 'create' ? 'createInput' : 'updateInput']);

  // Where an input error points in update and delete (create takes only its input).
  const mutationArgs = { id: 'id', input: 'input', ifMatch: 'ifMatch' };
  builder.mutationFields((t) => ({
    ...(serves(def, 'create') && {
      [`create${typeName}`]: t.field({
        type: payloadRef(),
        nullable: true,
        description: resourceTexts(def).create,
        authScopes: { scope: writeScope },
        args: {
          input: t.arg({ type: inputRef('create'), required: true, description: resourceTexts(def).createInputArg }),
          ...(def.idempotentCreate ? { idempotencyKey: t.arg.string({ required: true, description: resourceTexts(def).idempotencyKey }) } : {}),
        },
        resolve: (_root, args, ctx) => {
          const values = recordValues(def, 'create', args.input as Record<string, unknown>);
          if (!def.idempotentCreate) return payloadOf(() => written(ctx, service(ctx).create(requestContext(ctx), values)), { input: 'input' });
          return payloadOf(() => written(ctx, idempotentCreate(ctx, def, (args as { idempotencyKey?: unknown }).idempotencyKey, values)), { input: 'input' });
        },
      }),
    }),
    ...(serves(def, 'update') && {
      [`update${typeName}`]: t.field({
        type: payloadRef(),
        nullable: true,
        description: resourceTexts(def).update,
        authScopes: { scope: writeScope },
        args: {
          id: t.arg.id({ required: true, description: resourceTexts(def).updateId }),
          ifMatch: t.arg.string({ description: resourceTexts(def).ifMatch }),
          input: t.arg({ type: inputRef('update'), required: true, description: resourceTexts(def).updateInputArg }),
        },
        resolve: (_root, args, ctx) =>
          payloadOf(() => written(ctx, service(ctx).update(requestContext(ctx), String(args.id), args.ifMatch ?? undefined, recordValues(def, 'update', args.input as Record<string, unknown>))), mutationArgs),
      }),
    }),
    ...(serves(def, 'delete') && {
      [`delete${typeName}`]: t.field({
        type: shared.DeletePayload,
        nullable: true,
        description: resourceTexts(def).delete,
        authScopes: { scope: writeScope },
        args: {
          id: t.arg.id({ required: true, description: resourceTexts(def).deleteId }),
          ifMatch: t.arg.string({ description: resourceTexts(def).ifMatch }),
        },
        resolve: (_root, args, ctx) =>
          payloadOf(
            () => written(ctx, service(ctx).remove(requestContext(ctx), String(args.id), args.ifMatch ?? undefined)).then(() => ({ deletedId: String(args.id) })),
            mutationArgs,
          ),
      }),
    }),
  }));
  return payloadRef;
}
