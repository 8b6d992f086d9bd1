import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { resources } from '../../domain.ts';
import { supportedVersions } from '../../kernel/versioning.ts';
import { docText } from './doc-text.ts';
import { createDocumentBuilder } from './document-builder.ts';
import { documentInfo } from './document-info.ts';
import { registerDocumentOperation } from './document-operation.ts';
import { errorCatalogEntries } from './error-catalog.ts';
import { registerExtraOperations } from './extra-operations.ts';
import { registerResponseHeaders } from './headers.ts';
import { registerIdentityOperation } from './identity-operation.ts';
import { registerLookupOperations } from './lookup-operations.ts';
import { title } from './naming.ts';
import { withPathParameters } from './path-parameters.ts';
import { createProblemResponses } from './problem-responses.ts';
import { registerRequestParameters } from './request-parameters.ts';
import { registerResourceOperations } from './resource-operations.ts';
import { registerFileOperation } from './attachment-operations.ts';
import { documentSecurity, registerSecurityScheme } from './security.ts';
import { missingRecordSchemas, registerWebhookOperations, WEBHOOKS_TAG } from './webhook-operations.ts';

// GET /api/v2/openapi.json: an OpenAPI 3.1 document generated from the resource declarations (src/domain.ts
// `resources`), the kernel's field kinds, list rules and error catalog, for exactly the routes api-router.ts
// mounts. Nothing in this folder is written per resource; a new declaration appears in the document by itself.
// Routes beyond the five standard ones (linkages, lead and estimate conversion, system options) are declared in
// openapi-operations.ts. Registration order is document order (components, paths). `webhooks` holds one
// delivery per event topic, read from the topic catalog (webhook-operations.ts).

const BASE_PATH = '/api/v2';

export interface OpenApiOptions {
  /** Base of the problem `type` and `doc_url` links (config ERRORS_URL); defaults to the configured default. */
  errorsUrl?: string;
  /** The API versions this server accepts (config API_VERSIONS); defaults to the built-in list. */
  versions?: readonly string[];
  /** The server's public base URL (config PUBLIC_URL), for the absolute links of info; unset: none. */
  publicUrl?: string;
}

/** Builds the document. Deterministic: the same declarations give the same document on every call. */
export function buildOpenApiDocument(options: OpenApiOptions = {}): object {
  // Unset, the pages' own path (the default of ERRORS_URL without PUBLIC_URL).
  const errorsUrl = options.errorsUrl ?? '/errors';
  const versions = [...(options.versions ?? supportedVersions)] as [string, ...string[]];
  const registry = new OpenAPIRegistry();
  registerSecurityScheme(registry);
  registerResponseHeaders(registry);
  const parameters = registerRequestParameters(registry, versions);
  const problems = createProblemResponses(registry, { errorsUrl, basePath: BASE_PATH });
  const builder = createDocumentBuilder(registry, parameters, problems);

  registerIdentityOperation(builder);
  registerLookupOperations(builder);
  const records = new Map(resources.map((def) => [def.name, registerResourceOperations(builder, def)]));
  registerExtraOperations(builder, records);
  registerFileOperation(builder);
  registerDocumentOperation(builder);
  registerWebhookOperations(registry);
  problems.registerExamples();

  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: documentInfo(errorsUrl, versions, options.publicUrl),
    servers: [{ url: BASE_PATH, description: 'This server' }],
    security: documentSecurity(),
    tags: [
      { name: 'Identity', description: 'The caller.' },
      { name: 'Lookups', description: 'Tenant-configured statuses, labels and custom field definitions.' },
      ...resources.map((def) => ({ name: title(def.plural), description: docText(def.description) })),
      { name: 'Files', description: 'The files of attachment custom fields.' },
      { name: 'Meta', description: 'This document, and the AsyncAPI document of the events.' },
      WEBHOOKS_TAG,
    ],
  });
  // A served topic's body refers to its record's component: a topic whose resource has none is a wrong build.
  const missing = missingRecordSchemas(document.components?.schemas ?? {});
  if (missing.length > 0) throw new Error(`openapi: the webhooks refer to record schemas the document lacks: ${missing.join(', ')}`);
  return { ...document, paths: withPathParameters(document.paths ?? {}), 'x-error-codes': errorCatalogEntries() };
}
