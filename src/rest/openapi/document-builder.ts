import type { OpenAPIRegistry, ResponseConfig, RouteConfig, ZodContentObject } from '@asteasolutions/zod-to-openapi';
import type { ZodType } from 'zod';
import type { Operation } from './error-codes.ts';
import type { ProblemResponses } from './problem-responses.ts';
import type { RequestParameters } from './request-parameters.ts';
import { operationSecurity, securityNote } from './security.ts';

// What the operation builders share: the registry being filled, the registered request parameters, register
// (a component schema with the example of its bodies) and addOperation, which completes every operation the
// same way.

/** An operation as its builder describes it: the route, every scope it needs and its success responses. */
export type OperationConfig = Omit<RouteConfig, 'responses'> & { scopes: string[]; ok: Record<string, ResponseConfig> };

export interface DocumentBuilder {
  registry: OpenAPIRegistry;
  parameters: RequestParameters;
  /**
   * Registers a component schema under `name` and, when given, its example under the same name in
   * components.examples: every request or success body of the schema shows that example.
   */
  register<T extends ZodType>(name: string, schema: T, example?: unknown): T;
  /** Registers the operation with its security, the scope note, the version and request-id headers, its examples and its error responses. */
  addOperation(op: Operation, config: OperationConfig): void;
}

export function createDocumentBuilder(registry: OpenAPIRegistry, parameters: RequestParameters, problems: ProblemResponses): DocumentBuilder {
  /** The example name of each registered schema that has one. */
  const exampled = new Map<ZodType, string>();

  /** The content with the registered example of its schema, when it has one. */
  const withExamples = (content: ZodContentObject): ZodContentObject =>
    Object.fromEntries(
      Object.entries(content).map(([type, media]) => {
        const name = media && 'schema' in media ? exampled.get(media.schema as ZodType) : undefined;
        return [type, name ? { ...media, examples: { [name]: { $ref: `#/components/examples/${name}` } } } : media];
      }),
    );

  return {
    registry,
    parameters,
    register(name, schema, example) {
      const registered = registry.register(name, schema);
      if (example !== undefined) {
        registry.registerComponent('examples', name, { value: example });
        exampled.set(registered, name);
      }
      return registered;
    },
    addOperation(op, config) {
      const { scopes, ok, ...rest } = config;
      const open = op.kind === 'openapi';
      const headers = [...((rest.request?.headers as ZodType[] | undefined) ?? []), ...(open ? [] : [parameters.version]), parameters.requestId];
      const body = rest.request?.body;
      registry.registerPath({
        ...rest,
        description: `${rest.description ?? ''}\n\n${securityNote(scopes, open)}`.trim(),
        ...operationSecurity(scopes, open),
        request: { ...rest.request, headers, ...(body ? { body: { ...body, content: withExamples(body.content) } } : {}) },
        responses: {
          ...Object.fromEntries(Object.entries(ok).map(([status, response]) => [status, response.content ? { ...response, content: withExamples(response.content) } : response])),
          ...problems.of(op, rest.path, scopes),
        },
      });
    },
  };
}
