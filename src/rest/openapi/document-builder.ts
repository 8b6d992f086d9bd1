import type { OpenAPIRegistry, ResponseConfig, RouteConfig, ZodContentObject } from '@asteasolutions/zod-to-openapi';
import type { ZodType } from 'zod';
import type { Operation } from './error-codes.ts';
import type { responseHeaders } from './headers.ts';
import type { ProblemResponses } from './problem-responses.ts';
import type { RequestParameters } from './request-parameters.ts';
import { operationSecurity } from './security.ts';

// What the operation builders share: the registry being filled, the registered request parameters, register
// (a component schema with the example of its bodies), response (a success response several operations give)
// and addOperation, which completes every operation the same way.

/** A response of an operation, or the reference to a shared one. */
type ResponseOrReference = RouteConfig['responses'][string];
type ResponseReference = Exclude<ResponseOrReference, ResponseConfig>;

/** An operation as its builder describes it: the route, every scope it needs and its success responses. */
export type OperationConfig = Omit<RouteConfig, 'responses'> & { scopes: string[]; ok: Record<string, ResponseOrReference> };

/** A success response several operations give: its description, headers and body schema (a registered one), if any. */
export interface SharedResponse {
  description: string;
  headers: ReturnType<typeof responseHeaders>;
  schema?: ZodType;
}

export interface DocumentBuilder {
  registry: OpenAPIRegistry;
  parameters: RequestParameters;
  /**
   * Registers a component schema under `name` and, when given, its example under the same name in
   * components.examples: every request or success body of the schema shows that example.
   */
  register<T extends ZodType>(name: string, schema: T, example?: unknown): T;
  /**
   * The reference to the success response `name` of components.responses, registered (with the example of its
   * body) on its first use: for a response several operations give, such as a record's 200 or a 204.
   */
  response(name: string, response: () => SharedResponse): ResponseReference;
  /** Registers the operation with its security, the scope note, the version and request-id headers, its examples and its error responses. */
  addOperation(op: Operation, config: OperationConfig): void;
}

export function createDocumentBuilder(registry: OpenAPIRegistry, parameters: RequestParameters, problems: ProblemResponses): DocumentBuilder {
  /** The component name of each registered schema, and of those that have an example (under the same name). */
  const names = new Map<ZodType, string>();
  const exampled = new Set<ZodType>();
  const responses = new Set<string>();

  /** The reference to the registered example of a schema, when it has one. */
  const examplesOf = (schema: ZodType) => {
    const name = names.get(schema);
    return name && exampled.has(schema) ? { examples: { [name]: { $ref: `#/components/examples/${name}` } } } : {};
  };
  /** The content with the registered example of its schema, when it has one. */
  const withExamples = (content: ZodContentObject): ZodContentObject =>
    Object.fromEntries(Object.entries(content).map(([type, media]) => [type, media && 'schema' in media ? { ...media, ...examplesOf(media.schema as ZodType) } : media]));

  return {
    registry,
    parameters,
    register(name, schema, example) {
      const registered = registry.register(name, schema);
      names.set(registered, name);
      if (example !== undefined) {
        registry.registerComponent('examples', name, { value: example });
        exampled.add(registered);
      }
      return registered;
    },
    response(name, response) {
      if (!responses.has(name)) {
        const { description, headers, schema } = response();
        const schemaName = schema && names.get(schema);
        if (schema && !schemaName) throw new Error(`openapi: the body of the response ${name} is not a registered schema`);
        // A component is written as given (no schema conversion): the body refers to its registered schema.
        const content = schema && { 'application/json': { schema: { $ref: `#/components/schemas/${schemaName}` }, ...examplesOf(schema) } };
        registry.registerComponent('responses', name, { description, headers, ...(content ? { content } : {}) });
        responses.add(name);
      }
      return { $ref: `#/components/responses/${name}` };
    },
    addOperation(op, config) {
      const { scopes, ok, ...rest } = config;
      const open = op.kind === 'openapi';
      const headers = [...((rest.request?.headers as ZodType[] | undefined) ?? []), ...(open ? [] : [parameters.version]), parameters.requestId];
      const body = rest.request?.body;
      registry.registerPath({
        ...rest,
        // A file downloads with the key or, without one, by its signed link.
        ...(op.kind === 'file' ? { security: [...operationSecurity(scopes, false).security, {}] } : operationSecurity(scopes, open)),
        request: { ...rest.request, headers, ...(body ? { body: { ...body, content: withExamples(body.content) } } : {}) },
        responses: {
          ...Object.fromEntries(Object.entries(ok).map(([status, response]) => [status, 'content' in response && response.content ? { ...response, content: withExamples(response.content) } : response])),
          ...problems.of(op, rest.path, scopes),
        },
      });
    },
  };
}
