import type { ActionDefinition, ActionRecords } from '../../kernel/action.ts';
import type { RequestContext } from '../../kernel/context.ts';
import { requireScope } from '../../kernel/auth.ts';
import type { FieldSpec } from '../../kernel/fields.ts';
import { type ResourceDefinition } from '../../kernel/resource.ts';
import type { Single } from '../../kernel/resource-service.ts';
import type { WireShape } from '../../kernel/wire-shape.ts';
import { requestContext, type Builder, type GraphQLContext } from './builder.ts';
import { written } from './loaders.ts';
import { payloadOf } from './user-errors.ts';
import { camelCase, pascalCase } from '../../kernel/naming.ts';
import { actionTexts, inputFieldText } from './descriptions.ts';
import { graphqlType } from './field-types.ts';
import { recordInput } from './write-input.ts';
import { recordValues } from './write-body.ts';
import type { RecordShape } from './record-type.ts';
import type { ResourceTypes } from './resource-schema.ts';
import type { SharedTypes } from './shared-types.ts';
import { wireObject } from './wire-object.ts';
import { served } from './idempotent-create.ts';

// The GraphQL field of every declared action (src/kernel/action.ts): a query for GET actions, a mutation
// otherwise. Arguments are the record id, the further path parameters (camelCase), the body as an input type and a
// GET action's query parameters each as an argument of its own (camelCase, typed by its kind as input fields are);
// the resolver checks the action's scopes in order, renames the input to the declared field names and calls the
// same service. Answers: records as a payload of the resources' types (each with its ETag), a wire shape in
// `<Shape>Payload`, a list of a wire shape, or the DeletePayload of a 204 action; a mutation's payload also has
// userErrors, where its input errors go (user-errors.ts).

type AnyOptions = never;

/**
 * An idempotent action (a financial create) through the store REST uses, keyed on the field's name, the record id
 * and the input. A retry with the same key and arguments gets the same records as the first answer did, as a REST
 * retry does.
 */
async function idempotentAction(
  ctx: GraphQLContext,
  action: ActionDefinition,
  field: string,
  args: Record<string, unknown>,
  run: (context: RequestContext) => Promise<unknown>,
): Promise<ActionRecords> {
  const response = action.response;
  if (!('records' in response)) throw new Error(`${action.name}: an idempotent action answers records`);
  const { idempotencyKey, ...request } = args;
  const outcome = await ctx.domain.idempotency.run(requestContext(ctx), { key: idempotencyKey, method: 'GRAPHQL', path: field, body: request }, run);
  if (!('legacy' in outcome)) {
    return Object.fromEntries(Object.entries(outcome.records).map(([key, single]) => [key, served(ctx.domain.resource(response.records[key]).def, single)]));
  }
  // A key stored before the store kept records (2026-11-28) has the records' ids by key: they are read again.
  const ids = JSON.parse(outcome.legacy.body) as Record<string, string>;
  const records = await Promise.all(Object.entries(ids).map(async ([key, id]) => [key, await ctx.domain.resource(response.records[key]).get(requestContext(ctx), id)] as const));
  return Object.fromEntries(records);
}

/** The input type of an action's own fields, named after the field: LinkContactInput. */
function fieldsInput(builder: Builder, name: string, description: string, fields: Readonly<Record<string, FieldSpec>>, mode: 'create' | 'update') {
  return builder.inputType(name, {
    description,
    fields: (t) =>
      Object.fromEntries(
        Object.entries(fields)
          .filter(([, spec]) => (mode === 'create' ? spec.create : spec.update) !== 'not_accepted')
          .map(([wire, spec]) => [
            camelCase(wire),
            t.field({ type: graphqlType(spec.kind, builder, spec.enum), required: mode === 'create' && spec.create === 'required', description: inputFieldText(spec, mode) } as AnyOptions),
          ]),
      ) as never,
  });
}

/** A GraphQL input of an action's own fields -> its values by declared names; omitted stays omitted, null stays null. */
function fieldValues(fields: Readonly<Record<string, FieldSpec>>, input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const wire of Object.keys(fields)) if (input[camelCase(wire)] !== undefined) out[wire] = input[camelCase(wire)];
  return out;
}

const shapePayloads = new WeakMap<Builder, Map<string, unknown>>();

/** `<Shape>Payload { <key>: <Shape> }`, one per shape and schema. */
function shapePayload(builder: Builder, shared: SharedTypes, shape: WireShape, key: string, texts: ReturnType<typeof actionTexts>) {
  const made = shapePayloads.get(builder) ?? shapePayloads.set(builder, new Map()).get(builder)!;
  const name = `${shape.name}Payload`;
  if (!made.has(name)) {
    const object = wireObject(builder, shape);
    made.set(
      name,
      builder.objectRef<Record<string, unknown>>(name).implement({
        description: texts.shapePayload(key),
        fields: (t) =>
          ({
            [key]: t.field({ type: object, nullable: true, description: texts.shapePayload(key), resolve: (parent) => (parent[key] ?? null) as never }),
            userErrors: shared.userErrorsField(t),
          }) as never,
      }),
    );
  }
  return made.get(name) as never;
}

/** Registers the actions of `def`, when every resource they answer with or take input of is in the schema. */
export function registerActions(builder: Builder, def: ResourceDefinition, types: ReadonlyMap<string, ResourceTypes>, shared: SharedTypes): void {
  for (const action of def.actions ?? []) {
    const response = action.response;
    const needed = [...('records' in response ? Object.values(response.records) : []), ...(action.body && 'overrides' in action.body ? [action.body.overrides] : [])];
    if (needed.some((name) => !types.has(name))) continue;
    registerAction(builder, def, action, types, shared);
  }
}

function registerAction(builder: Builder, def: ResourceDefinition, action: ActionDefinition, types: ReadonlyMap<string, ResourceTypes>, shared: SharedTypes): void {
  const field = action.graphql?.field ?? action.name;
  const idArg = action.graphql?.idArg ?? 'id';
  const bodyArg = action.graphql?.bodyArg ?? 'input';
  const params = Object.keys(action.params ?? {});
  const response = action.response;
  const mutation = action.method !== 'get';

  const type = (() => {
    if ('records' in response) {
      return builder.objectRef<Record<string, Single | undefined>>(`${pascalCase(field)}Payload`).implement({
        description: actionTexts(action, def).payload,
        fields: (t) => ({
          ...Object.fromEntries(
            Object.entries(response.records).map(([key, resource]) => [
              camelCase(key),
              t.field({
                type: types.get(resource)!.record,
                nullable: true,
                description: actionTexts(action, def).payloadRecord(key, resource),
                resolve: (parent): RecordShape | null => parent[key] ?? null,
              }),
            ]),
          ),
          userErrors: shared.userErrorsField(t),
        }),
      });
    }
    if ('shape' in response) return shapePayload(builder, shared, response.shape, response.key, actionTexts(action, def));
    if ('list' in response) return [wireObject(builder, response.list)];
    return shared.DeletePayload;
  })();

  const body = action.body;
  const input = (() => {
    if (!body || 'empty' in body) return null;
    if ('overrides' in body) {
      const target = types.get(body.overrides)!.def;
      return { type: recordInput(builder, target, `${pascalCase(field)}${pascalCase(bodyArg)}Input`, 'create', actionTexts(action, def).body!, true, Object.keys(body.except ?? {})), target };
    }
    return { type: fieldsInput(builder, `${pascalCase(field)}${bodyArg === 'input' ? '' : pascalCase(bodyArg)}Input`, actionTexts(action, def).body!, body.fields, body.mode), target: null };
  })();
  // A GET action's query parameters: one argument each (null is omitted, as with list arguments).
  const query = Object.entries(action.query?.fields ?? {});
  /** The arguments -> the action's input values by their declared names ({} when none was given). */
  const inputValues = (args: Record<string, unknown>): Record<string, unknown> => {
    if (query.length > 0) return Object.fromEntries(query.filter(([wire]) => args[camelCase(wire)] != null).map(([wire]) => [wire, args[camelCase(wire)]]));
    const value = args[bodyArg];
    if (!body || 'empty' in body || !input || value === undefined || value === null) return {};
    return input.target ? recordValues(input.target, 'create', value as Record<string, unknown>) : fieldValues((body as { fields: Record<string, FieldSpec> }).fields, value as Record<string, unknown>);
  };

  const options = {
    type,
    nullable: true,
    description: actionTexts(action, def).field,
    authScopes: { authenticated: true },
    args: (t: any) => ({
      [idArg]: t.arg.id({ required: true, description: actionTexts(action, def).id }),
      ...Object.fromEntries(params.map((param) => [camelCase(param), t.arg.id({ required: true, description: actionTexts(action, def).param(param) })])),
      ...(input ? { [bodyArg]: t.arg({ type: input.type, required: body!.required, description: actionTexts(action, def).body }) } : {}),
      ...Object.fromEntries(
        query.map(([wire, spec]) => [camelCase(wire), t.arg({ type: graphqlType(spec.kind, builder, spec.enum), required: spec.create === 'required', description: actionTexts(action, def).parameter(spec) })]),
      ),
      ...(action.idempotent ? { idempotencyKey: t.arg.string({ required: true, description: actionTexts(action, def).idempotencyKey }) } : {}),
    }),
    resolve: async (_root: unknown, args: Record<string, unknown>, ctx: GraphQLContext) => {
      for (const scope of action.scopes) requireScope(ctx.principal, scope);
      const run = (context: RequestContext) =>
        action.run({
          domain: ctx.domain,
          ctx: context,
          id: String(args[idArg]),
          params: Object.fromEntries(params.map((param) => [param, String(args[camelCase(param)])])),
          input: () => inputValues(args),
        });
      const call = () => (action.idempotent ? idempotentAction(ctx, action, field, args, run) : run(requestContext(ctx)));
      if (!mutation) return call();
      // An input error of a mutation is its payload's userErrors (the id argument is the last one: linkageId ...).
      const lastId = camelCase(params[params.length - 1] ?? idArg);
      return payloadOf(
        () =>
          written(ctx, call()).then((result) =>
            response.status === 204 ? { deletedId: String(args[lastId]) } : 'shape' in response ? { [response.key]: result } : (result as object),
          ),
        { id: lastId, input: bodyArg },
      );
    },
  };
  const fieldOf = ((t: any) => t.field({ ...options, args: options.args(t) })) as never;
  if (mutation) builder.mutationField(field, fieldOf);
  else builder.queryField(field, fieldOf);
}
