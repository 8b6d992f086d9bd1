// The JSON Schemas of the MCP tools' inputs come from the OpenAPI document the app serves (GET
// /api/v2/openapi.json), which is generated from the same declarations (field specs, create/update rules, list
// parameters, action bodies) as the routes. The app hands the built document to this adapter (src/app.ts), so no
// schema is written or derived a second time here and the two descriptions cannot drift apart: what a tool takes
// is what the REST operation it stands for takes. OpenAPI 3.1 schemas are JSON Schema (2020-12); the document's
// references (`#/components/...`, including JSON pointers into a component's properties) are inlined, as a tool's
// input schema must stand alone.

export type JsonSchema = Record<string, unknown>;

/** A query or path parameter of an operation, as the document describes it. */
export interface DocumentedParameter {
  name: string;
  in: string;
  required: boolean;
  description?: string;
  schema: JsonSchema;
}

/** What the document says an operation takes. */
export interface DocumentedOperation {
  parameters: DocumentedParameter[];
  /** The JSON request body's schema, when the operation takes one. */
  body?: JsonSchema;
  /** The JSON body of its success answer (the first 2xx that has one), when it answers one. */
  response?: JsonSchema;
}

// Formats JSON Schema 2020-12 itself defines, which agents' validators know (Ajv with ajv-formats, as the SDK's
// client uses). The document's OpenAPI-registry formats (int32, int64, decimal) are dropped from the copies handed
// to agents: each such field also has its type, bounds or pattern and a description, so nothing is lost, and a
// validator meeting an unknown format logs a warning for every schema it compiles.
const JSON_SCHEMA_FORMATS = new Set(['date-time', 'date', 'time', 'duration', 'email', 'idn-email', 'hostname', 'idn-hostname', 'ipv4', 'ipv6', 'uri', 'uri-reference', 'iri', 'iri-reference', 'uuid', 'uri-template', 'json-pointer', 'relative-json-pointer', 'regex']);

const MAX_DEPTH = 64;

export class DocumentedSchemas {
  private readonly document: Record<string, unknown>;

  constructor(document: object) {
    this.document = document as Record<string, unknown>;
  }

  /** The value a local JSON pointer (`#/components/schemas/Customer/properties/name`) points at. */
  private pointer(ref: string): unknown {
    if (!ref.startsWith('#/')) throw new Error(`mcp: only local references are inlined (${ref})`);
    let at: unknown = this.document;
    for (const raw of ref.slice(2).split('/')) {
      const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      at = (at as Record<string, unknown> | undefined)?.[part];
    }
    if (at === undefined) throw new Error(`mcp: the OpenAPI document has no ${ref}`);
    return at;
  }

  /** The value with every reference inlined (a copy; the document is never changed). */
  resolve<T>(value: T, depth = 0): T {
    if (depth > MAX_DEPTH) throw new Error('mcp: references nest too deep to inline');
    if (Array.isArray(value)) return value.map((item) => this.resolve(item, depth + 1)) as T;
    if (value === null || typeof value !== 'object') return value;
    const object = value as Record<string, unknown>;
    if (typeof object.$ref === 'string') {
      const { $ref, ...siblings } = object;
      const target = this.resolve(this.pointer($ref as string), depth + 1) as Record<string, unknown>;
      // Siblings of $ref (a description) are kept beside the target's keywords, as OpenAPI 3.1 reads them.
      return { ...target, ...this.resolve(siblings, depth + 1) } as T;
    }
    const entries = Object.entries(object).filter(([key, item]) => !(key === 'format' && typeof item === 'string' && !JSON_SCHEMA_FORMATS.has(item)));
    return Object.fromEntries(entries.map(([key, item]) => [key, this.resolve(item, depth + 1)])) as T;
  }

  /** The operation at `path` (under the API's base, `/customers/{id}`) and `method`, or undefined. */
  operation(method: string, path: string): DocumentedOperation | undefined {
    const paths = this.document.paths as Record<string, Record<string, unknown>> | undefined;
    const item = paths?.[path];
    const operation = item?.[method] as Record<string, unknown> | undefined;
    if (!operation) return undefined;
    const shared = (item?.parameters as unknown[] | undefined) ?? [];
    const parameters = [...shared, ...((operation.parameters as unknown[] | undefined) ?? [])].map((parameter) => {
      const p = this.resolve(parameter) as Record<string, unknown>;
      return { name: String(p.name), in: String(p.in), required: p.required === true, description: p.description as string | undefined, schema: (p.schema as JsonSchema | undefined) ?? {} };
    });
    const requestBody = operation.requestBody ? (this.resolve(operation.requestBody) as Record<string, unknown>) : undefined;
    const content = requestBody?.content as Record<string, { schema?: JsonSchema }> | undefined;
    const responses = (operation.responses as Record<string, unknown> | undefined) ?? {};
    const success = Object.keys(responses)
      .filter((status) => /^2\d\d$/.test(status))
      .sort()
      .map((status) => (this.resolve(responses[status]) as { content?: Record<string, { schema?: JsonSchema }> }).content?.['application/json']?.schema)
      .find((schema) => schema !== undefined);
    return { parameters, body: content?.['application/json']?.schema, response: success };
  }
}
