import type { ActionDefinition } from '../kernel/action.ts';
import { restPath, type ResourceDefinition } from '../kernel/resource.ts';
import { pascalCase } from '../kernel/naming.ts';
import type { ExtraComponent, ExtraOperation } from './openapi-operations.ts';
import { docText } from './openapi/doc-text.ts';
import { singleExample, unpaginatedListEnvelope, unpaginatedListExample } from './openapi/envelopes.ts';
import { createFieldsExample, partialFieldsExample, recordExample, shapeExample } from './openapi/examples.ts';
import { exampleWithin, memberKeywords, objectKeywords, rulesNote, rulesOfAction } from './openapi/body-rules.ts';
import { kindNote, kindSchema } from './openapi/field-schemas.ts';
import { bodyObject, notAccepted, writeShape } from './openapi/write-fields.ts';
import { overridesSchema } from './openapi/write-schemas.ts';
import { z } from './openapi/zod.ts';
import { wireShapeSchema } from './wire-shape-schema.ts';

// The OpenAPI operations of the declared actions (src/kernel/action.ts) and the components they use, named after
// the action (ConvertLeadRequest, ConvertLeadCustomer, CreateContactLinkageFields, ConvertLeadResponse) or after
// the wire shape they serve (ContactLinkage, ContactLinkageResponse, ContactLinkageList). The request and
// response components carry their examples (src/rest/openapi/examples.ts).

function requestComponents(action: ActionDefinition, components: Map<string, ExtraComponent>): ExtraOperation['body'] {
  const body = action.body;
  if (!body) return undefined;
  const name = `${pascalCase(action.name)}Request`;
  if ('empty' in body) {
    // With a refusal any member is refused (strict); without one a body sent is not read (src/rest/action-input.ts):
    // the schema refuses nothing the server accepts.
    const schema = () =>
      body.refusal !== undefined
        ? z.object({}).strict().openapi({ description: docText(body.description) })
        : z.object({}).openapi({ description: `${docText(body.description)} A body sent is not read.` });
    components.set(name, { schema, example: () => ({}) });
    return { required: false, schema: (refs) => refs.component(name) };
  }
  if ('overrides' in body) {
    const overridesName = `${pascalCase(action.name)}${pascalCase(body.key)}`;
    components.set(overridesName, { schema: (refs) => overridesSchema(refs.definition(body.overrides), docText(body.description), Object.keys(body.except ?? {})) });
    components.set(name, {
      schema: (refs) =>
        z
          .object({ [body.key]: refs.component(overridesName).optional() })
          .strict()
          .openapi({
            description: `Optional: without a body (or without "${body.key}") the action works from the record alone. Any other member is refused (422 validation.failed naming it).`,
          }),
      example: (refs) => ({ [body.key]: partialFieldsExample(refs.definition(body.overrides).fields, 'create') }),
    });
    return { key: body.key, required: false, schema: (refs) => refs.component(name) };
  }
  const fieldsName = `${pascalCase(action.name)}Fields`;
  // The rules the action's service enforces in its own code (body-rules.ts): on its fields and between them.
  const rules = rulesOfAction(action.name);
  components.set(fieldsName, {
    schema: () => {
      const shape = writeShape(body.fields as never, body.mode, (name) => {
        const keywords = memberKeywords(rules, name);
        return keywords ? { keywords } : undefined;
      });
      const members = Object.keys(shape);
      const note = rulesNote(rules, members);
      const fields = bodyObject(shape, [docText(body.description), note].filter(Boolean).join(' '), notAccepted(body.fields as never, body.mode));
      const keywords = objectKeywords(rules, members);
      return keywords ? fields.openapi(keywords) : fields;
    },
  });
  components.set(name, {
    schema: (refs) => {
      const fields = refs.component(fieldsName);
      const keyed = z.object({ [body.key]: fields }).strict();
      if (!body.topLevel) return keyed;
      return z.union([fields, keyed]).openapi({
        description: `Either the fields themselves or the same fields under the key "${body.key}". A body with "${body.key}" and any other member is ambiguous: 422 validation.failed naming each other member. Unknown fields are refused in both shapes.`,
      });
    },
    example: () => ({ [body.key]: exampleWithin(rules, body.mode === 'create' ? createFieldsExample(body.fields) : partialFieldsExample(body.fields, 'update')) }),
  });
  return { key: body.key, required: body.required, schema: (refs) => refs.component(name) };
}

/**
 * The query parameters of a GET action (ActionQuery): each declared parameter with the schema of its field (kind,
 * range, enum, as the kernel checks them) and its description. Strict: any other parameter is refused (422
 * validation.failed naming it, src/rest/action-input.ts).
 */
function queryParameters(action: ActionDefinition): ExtraOperation['query'] {
  const query = action.query;
  if (!query) return undefined;
  return () =>
    z
      .object(
        Object.fromEntries(
          Object.entries(query.fields).map(([name, spec]) => {
            const description = docText([spec.description, kindNote(spec, 'write')].filter(Boolean).join(' '));
            const schema = kindSchema(spec).openapi({ param: { description } });
            return [name, spec.create === 'required' ? schema : schema.optional()];
          }),
        ),
      )
      .strict();
}

function responseSchema(action: ActionDefinition, components: Map<string, ExtraComponent>): ExtraOperation['ok']['schema'] {
  const response = action.response;
  if (response.status === 204) return undefined;
  if ('records' in response) {
    const name = `${pascalCase(action.name)}Response`;
    components.set(name, {
      schema: (refs) =>
        z.object({
          data: z.object(Object.fromEntries(Object.entries(response.records).map(([key, resource]) => [key, refs.record(resource)]))).openapi({ description: docText(response.description) }),
        }),
      example: (refs) => singleExample(Object.fromEntries(Object.entries(response.records).map(([key, resource]) => [key, recordExample(refs.definition(resource))]))),
    });
    return (refs) => refs.component(name);
  }
  const shape = 'shape' in response ? response.shape : response.list;
  if (!components.has(shape.name)) components.set(shape.name, { schema: () => wireShapeSchema(shape) });
  if ('shape' in response) {
    const name = `${shape.name}Response`;
    if (!components.has(name)) components.set(name, { schema: (refs) => z.object({ data: refs.component(shape.name) }), example: () => singleExample(shapeExample(shape)) });
    return (refs) => refs.component(name);
  }
  const name = `${shape.name}List`;
  components.set(name, {
    schema: (refs) => unpaginatedListEnvelope(z.array(refs.component(shape.name)).openapi({ description: docText(response.description) }), 'the list is not paginated'),
    example: () => unpaginatedListExample(shapeExample(shape)),
  });
  return (refs) => refs.component(name);
}

/** What the Location header of a 201 action names: the record's key, or the shape's. */
function locatedName(action: ActionDefinition): string {
  const response = action.response;
  return 'records' in response ? (response.location ?? '') : 'shape' in response ? response.key : '';
}

/** The components and operations of every action of the given resources. */
export function actionOperations(definitions: readonly ResourceDefinition[]): { components: Map<string, ExtraComponent>; operations: ExtraOperation[] } {
  const components = new Map<string, ExtraComponent>();
  const operations: ExtraOperation[] = [];
  for (const def of definitions) {
    for (const action of def.actions ?? []) {
      const body = requestComponents(action, components);
      const query = queryParameters(action);
      const schema = responseSchema(action, components);
      const located = action.response.status !== 204 && 'location' in action.response && action.response.location !== undefined;
      operations.push({
        method: action.method,
        path: `/${restPath(def)}/{id}${action.path}`,
        operationId: action.name,
        resource: def.name,
        summary: action.summary,
        description: [
          docText(action.description),
          located ? `Answers 201 with Location of the new ${locatedName(action)} (no ETag).` : undefined,
          query ? 'A query parameter given twice, or any other parameter: 422 validation.failed naming it.' : undefined,
        ]
          .filter(Boolean)
          .join(' '),
        scopes: [...action.scopes],
        params: action.params,
        query,
        body,
        ok: { status: action.response.status, description: docText(action.response.description), schema, headers: located ? ['Location'] : undefined },
        // Parameters are input: a value outside its rules, or a parameter the action does not take, is 422.
        errors: [...action.errors, ...(query && !action.errors.includes('validation.failed') ? (['validation.failed'] as const) : [])],
        includes: action.includes ? [...action.includes] : undefined,
        idempotent: action.idempotent,
      });
    }
  }
  return { components, operations };
}
