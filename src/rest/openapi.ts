// Placeholder until the generator lands (see issue 2): replaced by a document generated from the declarations.
export function buildOpenApiDocument(): object {
  return { openapi: '3.1.0', info: { title: 'Fieldline API', version: '2026-04-30' }, paths: {} };
}
