import type { ZodType } from 'zod';
import { resources } from '../../domain.ts';
import { extraComponents, extraOperations, type ExtraOperation, type SchemaRefs } from '../openapi-operations.ts';
import type { DocumentBuilder } from './document-builder.ts';
import { responseHeaders } from './headers.ts';
import { title } from './naming.ts';
import { z } from './zod.ts';

// The routes beyond the five standard ones (linkages, conversions, system options): the components and the
// ExtraOperation entries declared in openapi-operations.ts, turned into operations like the standard ones.

function definition(name: string) {
  const def = resources.find((d) => d.name === name);
  if (!def) throw new Error(`openapi: unknown resource ${name}`);
  return def;
}

/** A path parameter other than {id}, named and described by an extra operation. */
const pathParameter = (name: string, description: string) => z.string().openapi({ format: 'uuid', param: { name, in: 'path', description } });

/** Registers the extra components, then the extra operations; `records` are the registered records by resource name. */
export function registerExtraOperations(builder: DocumentBuilder, records: Map<string, ZodType>): void {
  const components = new Map<string, ZodType>();
  const refs: SchemaRefs = {
    record: (name) => records.get(definition(name).name)!,
    definition,
    component: (name) => {
      const schema = components.get(name);
      if (!schema) throw new Error(`openapi: component ${name} is not declared before its use`);
      return schema;
    },
  };
  for (const [name, component] of Object.entries(extraComponents)) components.set(name, builder.register(name, component.schema(refs), component.example?.(refs)));
  for (const extra of extraOperations) registerExtraOperation(builder, extra, refs);
}

function registerExtraOperation({ parameters, addOperation }: DocumentBuilder, extra: ExtraOperation, refs: SchemaRefs): void {
  const def = definition(extra.resource);
  const pathParams = (extra.path.match(/\{[a-z_]+\}/g) ?? []).map((p) => p.slice(1, -1));
  const params = Object.fromEntries(
    pathParams.map((name) => {
      if (name === 'id') return [name, parameters.recordId];
      const description = extra.params?.[name];
      if (!description) throw new Error(`openapi: ${extra.operationId} does not describe the path parameter ${name}`);
      return [name, pathParameter(name, description)];
    }),
  );
  const { ok, body } = extra;
  addOperation(
    { kind: 'extra', extra, includes: (extra.includes ?? []).map((i) => ({ kind: i.kind, def: definition(i.resource) })) },
    {
      method: extra.method,
      path: extra.path,
      operationId: extra.operationId,
      tags: [title(def.plural)],
      summary: extra.summary,
      description: extra.description,
      request: {
        ...(pathParams.length ? { params: z.object(params) } : {}),
        ...(extra.idempotent ? { headers: [parameters.idempotencyKey] } : {}),
        ...(extra.query ? { query: extra.query() } : {}),
        ...(body
          ? { body: { required: body.required, description: body.description, content: { 'application/json': { schema: body.schema(refs) } } } }
          : {}),
      },
      scopes: extra.scopes,
      ok: {
        [ok.status]: {
          description: ok.description,
          headers: responseHeaders(...(ok.headers ?? []), ...(extra.idempotent ? (['Idempotent-Replayed'] as const) : [])),
          ...(ok.schema ? { content: { 'application/json': { schema: ok.schema(refs) } } } : {}),
        },
      },
    },
  );
}
