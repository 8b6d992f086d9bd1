// The fuzz's view of the OpenAPI document served by the running app (GET /api/v2/openapi.json): every
// operation with its parameters, body and documented problem codes, the error catalog, and the collections
// (list endpoints whose records can be named by an id). Nothing here names a resource: a new endpoint or
// resource declared in src/ appears in the document and so in the fuzz by itself.

export type Schema = Record<string, any>;

export interface ParamModel {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: Schema;
  description: string;
  style?: string;
  explode?: boolean;
}

export interface BodyModel {
  required: boolean;
  contentTypes: string[];
  /** The body schema, $refs resolved at its top level. */
  schema: Schema;
  /** The resource-named key the record travels under ({"customer": {...}}), when the body has one. */
  wrapperKey?: string;
}

export interface FuzzOperation {
  /** "POST /customers/{id}" */
  label: string;
  method: string;
  /** Path under /api/v2 in OpenAPI syntax. */
  path: string;
  operationId: string;
  pathParams: ParamModel[];
  queryParams: ParamModel[];
  headerParams: ParamModel[];
  /** The operation documents a required If-Match header. */
  ifMatch: boolean;
  /** The operation has a security requirement (needs the Bearer key). */
  authenticated: boolean;
  body?: BodyModel;
  /** Problem codes the operation documents, by HTTP status (responses[status]['x-error-codes']). */
  problemCodes: Map<number, Set<string>>;
  /**
   * The collection an {id} of this path names: the path before its first parameter, without the leading slash
   * ("customers", "webhooks/endpoints"); the whole path when it has none.
   */
  collection: string;
}

/**
 * A list endpoint: GET /<name> (or GET /<parent>/{id}/<name>) answering {data: [<Class>], has_more}. A name may
 * have several segments (GET /webhooks/endpoints).
 */
export interface CollectionModel {
  /** Pool name: "customers", "webhooks/endpoints", or "contacts/linkages" for a sub-collection. */
  name: string;
  /** GET path of the list: "/customers", "/contacts/{id}/linkages". */
  listPath: string;
  /** Record component of the list items ("Customer", "ContactLinkage"). */
  className: string;
  /** Parent collection of a sub-collection ("contacts", "webhooks/endpoints"). */
  parent?: string;
  /** POST on the list path exists. */
  creatable: boolean;
  /** GET /<name>/{id} exists: a member can be read (and its ETag taken) by id. */
  readable: boolean;
}

export interface OpenApiModel {
  doc: Schema;
  operations: FuzzOperation[];
  /** code -> HTTP status, from the document's x-error-codes catalog. */
  catalog: Map<string, number>;
  /** The problem code pattern the document's Problem schema declares. */
  codePattern: RegExp;
  collections: Map<string, CollectionModel>;
  /** Class name -> collection name ("Customer" -> "customers"). */
  collectionOfClass: Map<string, string>;
  /** Resolves a $ref (recursively) to the schema it names. */
  resolve(schema: Schema | undefined): Schema;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** "TaxRate" -> "tax_rate" */
export function snake(className: string): string {
  return className.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

export function buildModel(doc: Schema): OpenApiModel {
  const resolveRef = (ref: string): Schema => {
    if (!ref.startsWith('#/')) throw new Error(`openapi fuzz: external $ref ${ref}`);
    let node: any = doc;
    for (const part of ref.slice(2).split('/')) {
      node = node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
      if (node === undefined) throw new Error(`openapi fuzz: dangling $ref ${ref}`);
    }
    return node as Schema;
  };
  const resolve = (schema: Schema | undefined): Schema => {
    let s: Schema = schema ?? {};
    for (let i = 0; i < 32 && typeof s.$ref === 'string'; i++) s = resolveRef(s.$ref);
    return s;
  };
  const refName = (schema: Schema | undefined): string | undefined => {
    const ref = schema?.$ref;
    return typeof ref === 'string' ? ref.split('/').pop() : undefined;
  };

  const catalog = new Map<string, number>();
  for (const entry of (doc['x-error-codes'] ?? []) as { code: string; status: number }[]) catalog.set(entry.code, entry.status);
  const problem = resolve(doc.components?.schemas?.Problem);
  const pattern = problem?.properties?.code?.pattern;
  const codePattern = new RegExp(typeof pattern === 'string' ? pattern : '^[a-z_]+(\\.[a-z_]+)+$');

  const operations: FuzzOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {}) as [string, Schema][]) {
    for (const method of METHODS) {
      const op = item[method] as Schema | undefined;
      if (!op) continue;
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: Schema) => {
        const r = resolve(p);
        return {
          name: r.name,
          in: r.in,
          required: r.required === true,
          schema: resolve(r.schema),
          description: String(r.description ?? ''),
          style: r.style,
          explode: r.explode,
        } satisfies ParamModel;
      });
      let body: BodyModel | undefined;
      if (op.requestBody) {
        const rb = resolve(op.requestBody);
        const contentTypes = Object.keys(rb.content ?? {});
        const schema = resolve(rb.content?.[contentTypes[0]]?.schema);
        // The wrapper: an object (or one alternative of the body) whose only member is the record object.
        let wrapperKey: string | undefined;
        for (const candidate of [schema, ...((schema.anyOf ?? schema.oneOf ?? []) as Schema[]).map(resolve)]) {
          const props = Object.entries(candidate.properties ?? {}) as [string, Schema][];
          const inner = props.length === 1 ? resolve(props[0][1]) : undefined;
          if (inner && (inner.type === 'object' || inner.properties)) {
            wrapperKey = props[0][0];
            break;
          }
        }
        body = { required: rb.required === true, contentTypes, schema, wrapperKey };
      }
      const problemCodes = new Map<number, Set<string>>();
      for (const [status, response] of Object.entries(op.responses ?? {}) as [string, Schema][]) {
        const codes = resolve(response)['x-error-codes'];
        if (Array.isArray(codes)) problemCodes.set(Number(status), new Set(codes as string[]));
      }
      const security = (op.security ?? doc.security ?? []) as Schema[];
      operations.push({
        label: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        operationId: String(op.operationId ?? `${method} ${path}`),
        pathParams: params.filter((p) => p.in === 'path'),
        queryParams: params.filter((p) => p.in === 'query'),
        headerParams: params.filter((p) => p.in === 'header'),
        ifMatch: params.some((p) => p.in === 'header' && p.name.toLowerCase() === 'if-match' && p.required),
        authenticated: security.length > 0,
        body,
        problemCodes,
        collection: collectionOfPath(path),
      });
    }
  }

  // Collections: GET lists whose 200 answer is {data: [<$ref Class>]}.
  const collections = new Map<string, CollectionModel>();
  const collectionOfClass = new Map<string, string>();
  const has = (method: string, path: string) => operations.some((o) => o.method === method && o.path === path);
  for (const op of operations) {
    if (op.method !== 'GET') continue;
    // A top collection: literal segments only (/customers, /webhooks/endpoints). A sub-collection: a top
    // collection's member, then one literal segment (/contacts/{id}/linkages, /webhooks/endpoints/{id}/deliveries).
    const sub = /^(\/[^{}]+)\/\{id\}\/([^/{}]+)$/.exec(op.path);
    const top = !op.path.includes('{');
    if (!top && !sub) continue;
    const ok = resolve(resolve(doc.paths[op.path].get.responses?.['200'])?.content?.['application/json']?.schema);
    const items = ok?.properties?.data;
    if (!items || resolve(items).type !== 'array') continue;
    const className = refName(resolve(items).items);
    if (!className) continue;
    // Entries without ids (the webhook topic catalog) are nothing a path or a body can name: not a collection.
    if (!resolve(resolve(items).items)?.properties?.id) continue;
    const name = top ? op.path.slice(1) : `${sub![1].slice(1)}/${sub![2]}`;
    collections.set(name, {
      name,
      listPath: op.path,
      className,
      parent: sub ? sub[1].slice(1) : undefined,
      creatable: has('POST', op.path),
      readable: top && has('GET', `${op.path}/{id}`),
    });
    if (top && !collectionOfClass.has(className)) collectionOfClass.set(className, name);
  }
  return { doc, operations, catalog, codePattern, collections, collectionOfClass, resolve };
}

/** The collection an {id} of the path names (FuzzOperation.collection): the path before its first parameter. */
export function collectionOfPath(path: string): string {
  const at = path.indexOf('/{');
  return (at < 0 ? path : path.slice(0, at)).slice(1);
}

/** The pool the path parameter `name` of a path names: the collection listed at the path in front of it. */
export function poolOfPath(model: OpenApiModel, path: string, name: string): string | undefined {
  const at = path.indexOf(`/{${name}}`);
  if (at < 0) return undefined;
  const listPath = path.slice(0, at);
  for (const collection of model.collections.values()) if (collection.listPath === listPath) return collection.name;
  // A nested resource's record path (/notes/{id}): its records are listed and created under parents only.
  if (nestedCollections(model, listPath.slice(1)).length > 0) return listPath.slice(1);
  return undefined;
}

/**
 * The sub-collections that hold the records of a nested resource (notes: /customers/{id}/notes, /jobs/{id}/notes
 * ...), by the resource's record pool ("notes"): creatable sub-collections whose last segment has a record path
 * of its own (GET /notes/{id}) but no top-level list.
 */
export function nestedCollections(model: OpenApiModel, pool: string): CollectionModel[] {
  if (model.collections.has(pool) || !model.doc.paths[`/${pool}/{id}`]?.get) return [];
  return [...model.collections.values()].filter((c) => c.parent && c.creatable && c.name.endsWith(`/${pool}`));
}

/** The pool (collection name) a field or parameter named `<class>_id` refers to, if the document has it. */
export function collectionOfField(model: OpenApiModel, name: string): string | undefined {
  const match = /^(.+)_id$/.exec(name);
  if (!match) return undefined;
  for (const [className, collection] of model.collectionOfClass) if (snake(className) === match[1]) return collection;
  return undefined;
}

/** `related_name=<Class>` cross-references a description makes to a lookup (statuses, labels, custom fields). */
export function lookupHint(description: unknown): { lookup: string; className: string } | undefined {
  const match = /GET \/([a-z_]+)\?related_name=([A-Z][A-Za-z]*)/.exec(String(description ?? ''));
  return match ? { lookup: match[1], className: match[2] } : undefined;
}
