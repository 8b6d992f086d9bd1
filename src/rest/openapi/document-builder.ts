import type { OpenAPIRegistry, ResponseConfig, RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { ZodType } from 'zod';
import { errorCodesOf, type Operation } from './error-codes.ts';
import { problemResponses, type ProblemRendering } from './problem-responses.ts';
import type { RequestParameters } from './request-parameters.ts';
import { operationSecurity, securityNote } from './security.ts';

// What the operation builders share: the registry being filled, the registered request parameters, and
// addOperation, which completes every operation the same way.

/** An operation as its builder describes it: the route, every scope it needs and its success responses. */
export type OperationConfig = Omit<RouteConfig, 'responses'> & { scopes: string[]; ok: Record<string, ResponseConfig> };

export interface DocumentBuilder {
  registry: OpenAPIRegistry;
  parameters: RequestParameters;
  /** Registers the operation with its security, the scope and error-code notes, the version and request-id headers and its error responses. */
  addOperation(op: Operation, config: OperationConfig): void;
}

export function createDocumentBuilder(registry: OpenAPIRegistry, parameters: RequestParameters, problems: ProblemRendering): DocumentBuilder {
  return {
    registry,
    parameters,
    addOperation(op, config) {
      const { scopes, ok, ...rest } = config;
      const open = op.kind === 'openapi';
      const headers = [...((rest.request?.headers as ZodType[] | undefined) ?? []), ...(open ? [] : [parameters.version]), parameters.requestId];
      registry.registerPath({
        ...rest,
        description: `${rest.description ?? ''}\n\n${securityNote(scopes, open)} Error codes: ${errorCodesOf(op).join(', ')}.`.trim(),
        ...operationSecurity(scopes, open),
        request: { ...rest.request, headers },
        responses: { ...ok, ...problemResponses(op, rest.path, scopes, problems) },
      });
    },
  };
}
