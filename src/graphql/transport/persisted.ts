import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { GraphQLError, parse, Source } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { AppError } from '../../kernel/errors.ts';
import { documentRefusal, requestError } from './document-limits.ts';
import { limits } from '../schema/cost.ts';

// Persisted operations on /graphql (docs/decisions.md, GraphQL; docs/graphql-limits.md):
// - Automatic persisted queries, Apollo's protocol (Apollo Client's persisted-queries link, urql's
//   persistedExchange, Relay tooling): `extensions.persistedQuery = { version: 1, sha256Hash }`. Without `query`
//   the stored document of the hash runs, or the request fails with PersistedQueryNotFound
//   (PERSISTED_QUERY_NOT_FOUND, HTTP 404) and the client sends it again with its query; with `query` the hash
//   must be the SHA-256 of the query (else 400 PERSISTED_QUERY_MISMATCH) and the query is stored, then runs.
//   Works with GET (`extensions` query parameter), which makes a hash-only read cacheable; a stored mutation
//   sent with GET is 405 as any mutation sent with GET.
// - Allowlist mode (GRAPHQL_PERSISTED_OPERATIONS, a manifest file): only the manifest's documents run, named by
//   their id (extensions.persistedQuery.sha256Hash or a `documentId` parameter) or sent in full; any other
//   document (introspection included) is `graphql.operation_not_allowed`, over HTTP and WebSocket alike. APQ
//   registration is off.
// The yoga plugin runs after admission (server.ts): only authenticated, rate-limited requests reach it, so no
// anonymous client fills the store. Stored documents are the ones a transport would accept (documentRefusal:
// tokens, nesting) and at most MAX_STORED_BYTES; each run still passes every limit (limits.ts) like any document.
// Keys are the hash alone: a document is not tenant data. A plugin of our own rather than
// @graphql-yoga/plugin-apq: see docs/decisions.md.

/** Longest document stored for APQ (apps' documents are a few KB). */
export const MAX_STORED_BYTES = 32 * 1024;
/** The in-process store: at most this many documents and bytes (least recently used go first). */
export const MEMORY_MAX_ENTRIES = 1000;
export const MEMORY_MAX_BYTES = 8 * 1024 * 1024;
const REDIS_PREFIX = 'fl_apq:';
const SHA256_HEX = /^[0-9a-f]{64}$/;

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export interface PersistedStore {
  get(hash: string): Promise<string | undefined>;
  set(hash: string, document: string): Promise<void>;
}

export function memoryStore(maxEntries = MEMORY_MAX_ENTRIES, maxBytes = MEMORY_MAX_BYTES): PersistedStore & { cache: LRUCache<string, string> } {
  const cache = new LRUCache<string, string>({ max: maxEntries, maxSize: maxBytes, sizeCalculation: (document) => Math.max(1, Buffer.byteLength(document)) });
  return {
    cache,
    get: async (hash) => cache.get(hash),
    set: async (hash, document) => void cache.set(hash, document),
  };
}

/**
 * Documents shared by every process through Redis (SET with a TTL), with the process's own LRU in front: a hit
 * there costs no round trip. When Redis fails the local store still answers and learns, as the rate limits fall
 * back to memory.
 */
export function redisStore(redis: Redis, ttlSeconds: number, logger?: Logger): PersistedStore {
  const local = memoryStore();
  const warn = (error: unknown) => logger?.warn({ err_name: (error as Error)?.name }, 'APQ store: Redis unavailable, using the process store');
  return {
    async get(hash) {
      const known = await local.get(hash);
      if (known !== undefined) return known;
      try {
        const stored = await redis.get(REDIS_PREFIX + hash);
        if (stored === null) return undefined;
        // A value that is not the document of its hash (written by something else) is not served.
        if (sha256Hex(stored) !== hash) return undefined;
        local.cache.set(hash, stored);
        return stored;
      } catch (error) {
        warn(error);
        return undefined;
      }
    },
    async set(hash, document) {
      local.cache.set(hash, document);
      try {
        await redis.set(REDIS_PREFIX + hash, document, 'EX', ttlSeconds);
      } catch (error) {
        warn(error);
      }
    },
  };
}

/** The operations of a manifest: id -> document, and the documents themselves (sent in full, or by their SHA-256). */
export interface Manifest {
  byId: Map<string, string>;
  documents: Set<string>;
}

/**
 * Reads a persisted-operations manifest: a JSON object of id -> document (Relay's persist output, graphql-codegen's
 * persisted documents) or Apollo's persisted query manifest `{ operations: [{ id, body, name, type }] }`. Every
 * document must parse and pass the token and nesting limits. Throws an Error naming the file and the problem.
 */
export function loadManifest(path: string): Manifest {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read the persisted operations manifest ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const fail = (why: string): never => {
    throw new Error(`the persisted operations manifest ${path} ${why}`);
  };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    fail('is not valid JSON');
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) fail('must be a JSON object: { "<id>": "<document>" } or { "operations": [{ "id", "body" }] }');
  const entries: [string, unknown][] = [];
  const object = json as Record<string, unknown>;
  if ('operations' in object) {
    if (!Array.isArray(object.operations)) fail('has "operations" that is not an array');
    (object.operations as unknown[]).forEach((operation, index) => {
      const { id, body } = (operation ?? {}) as { id?: unknown; body?: unknown };
      if (typeof id !== 'string' || id === '') fail(`has operations[${index}] without a string "id"`);
      entries.push([id as string, body]);
    });
  } else {
    entries.push(...Object.entries(object));
  }
  if (entries.length === 0) fail('has no operations');
  const manifest: Manifest = { byId: new Map(), documents: new Set() };
  for (const [id, document] of entries) {
    if (typeof document !== 'string' || document.trim() === '') fail(`has no document text for "${id}"`);
    const refusal = documentRefusal(document as string);
    if (refusal) fail(`has a document that breaks a limit ("${id}"): ${refusal.detail}`);
    try {
      parse(document as string, { maxTokens: limits.maxTokens });
    } catch (error) {
      fail(`has a document that does not parse ("${id}"): ${(error as Error).message}`);
    }
    manifest.byId.set(id, document as string);
    manifest.documents.add(document as string);
  }
  return manifest;
}

export interface PersistedOptions {
  errorsUrl: string;
  /** Allowlist mode: only these operations run (APQ registration off). */
  manifest?: Manifest;
  /** APQ (ignored in allowlist mode); default on. */
  apq: boolean;
  store: PersistedStore;
  /** Whether the document's selected operation is a mutation (GraphqlGate.isMutation). */
  isMutation(query: string, operationName: string | undefined | null): boolean;
}

interface PersistedQueryExtension {
  version: 1;
  sha256Hash: string;
}

function protocolError(message: string, code: string, status: number): GraphQLError {
  return new GraphQLError(message, { extensions: { code, http: { status, headers: { 'Cache-Control': 'private, no-store' } } } });
}

function persistedQueryOf(extensions: unknown, errorsUrl: string): PersistedQueryExtension | null {
  const value = (extensions as { persistedQuery?: unknown } | null | undefined)?.persistedQuery;
  if (value === undefined || value === null) return null;
  const { version, sha256Hash } = value as Partial<PersistedQueryExtension>;
  if (typeof value !== 'object' || version !== 1 || typeof sha256Hash !== 'string') {
    throw requestError(new AppError('request.malformed_json', 'extensions.persistedQuery must be { "version": 1, "sha256Hash": "<SHA-256 of the query, hex>" }.'), errorsUrl);
  }
  return { version, sha256Hash };
}

/** The `documentId` of a GET's query string or a POST body (GraphQL-over-HTTP persisted documents). */
function documentIdOf(params: Record<string, unknown>, request: Request, errorsUrl: string): string | undefined {
  let id = params.documentId;
  if (id === undefined && request.method === 'GET') id = new URL(request.url, 'http://localhost').searchParams.get('documentId') ?? undefined;
  if (id === undefined || id === null) return undefined;
  if (typeof id !== 'string' || id === '') throw requestError(new AppError('request.malformed_json', 'documentId must be a non-empty string.'), errorsUrl);
  return id;
}

export function notAllowed(): AppError {
  return new AppError(
    'graphql.operation_not_allowed',
    'This server runs only its persisted operations: send the id of one (extensions.persistedQuery.sha256Hash or documentId).',
  );
}

/** The document of an id in a manifest: by its id, by the id without a `sha256:` prefix, or by the SHA-256 of a document. */
function fromManifest(manifest: Manifest, hashes: Map<string, string>, id: string): string | undefined {
  return manifest.byId.get(id) ?? (id.startsWith('sha256:') ? (manifest.byId.get(id.slice(7)) ?? hashes.get(id.slice(7))) : hashes.get(id));
}

/**
 * The yoga plugin of persisted operations (see the top of this file). Its onParams resolves an id to its document
 * before yoga checks the parameters; in allowlist mode its onParse refuses any document not in the manifest, for
 * HTTP and WebSocket operations alike.
 */
export function persistedOperations(options: PersistedOptions): Plugin {
  const { manifest, store, errorsUrl } = options;
  const manifestHashes = new Map<string, string>();
  if (manifest) for (const document of manifest.documents) manifestHashes.set(sha256Hex(document), document);
  const refuseGetMutation = (request: Request, query: string, operationName: unknown) => {
    if (request.method === 'GET' && options.isMutation(query, typeof operationName === 'string' ? operationName : undefined)) {
      throw requestError(new AppError('method.not_allowed', 'A mutation must be sent with POST.', {}, { Allow: 'POST' }), errorsUrl);
    }
  };

  return {
    async onParams({ params, request, setParams }) {
      const raw = params as unknown as Record<string, unknown>;
      const persisted = persistedQueryOf(params.extensions, errorsUrl);
      const documentId = documentIdOf(raw, request, errorsUrl);
      if (!persisted && documentId === undefined) return;
      const { documentId: _documentId, ...rest } = raw;
      const query = typeof params.query === 'string' && params.query !== '' ? params.query : undefined;

      if (manifest) {
        // A document sent in full is checked against the manifest in onParse; an id must name one of its operations.
        if (query !== undefined) return setParams(rest as typeof params);
        const document = fromManifest(manifest, manifestHashes, documentId ?? persisted!.sha256Hash);
        if (document === undefined) throw requestError(notAllowed(), errorsUrl);
        refuseGetMutation(request, document, params.operationName);
        return setParams({ ...(rest as typeof params), query: document });
      }

      if (documentId !== undefined && query === undefined) {
        // documentId names a stored document (sha256:<hash> or the bare hash); it never registers one.
        const hash = documentId.startsWith('sha256:') ? documentId.slice(7) : documentId;
        const document = options.apq && SHA256_HEX.test(hash) ? await store.get(hash) : undefined;
        if (document === undefined) throw protocolError('PersistedQueryNotFound', 'PERSISTED_QUERY_NOT_FOUND', 404);
        refuseGetMutation(request, document, params.operationName);
        return setParams({ ...(rest as typeof params), query: document });
      }
      if (!persisted) return setParams(rest as typeof params);
      if (!options.apq) {
        if (query !== undefined) return setParams(rest as typeof params);
        throw protocolError('PersistedQueryNotSupported', 'PERSISTED_QUERY_NOT_SUPPORTED', 400);
      }

      const hash = persisted.sha256Hash;
      if (query === undefined) {
        const document = SHA256_HEX.test(hash) ? await store.get(hash) : undefined;
        if (document === undefined) throw protocolError('PersistedQueryNotFound', 'PERSISTED_QUERY_NOT_FOUND', 404);
        refuseGetMutation(request, document, params.operationName);
        return setParams({ ...(rest as typeof params), query: document });
      }
      setParams(rest as typeof params);
      if (sha256Hex(query) !== hash) {
        throw protocolError(
          'PersistedQueryMismatch: extensions.persistedQuery.sha256Hash is not the SHA-256 of the query (lowercase hex of its UTF-8 text); nothing was stored or run.',
          'PERSISTED_QUERY_MISMATCH',
          400,
        );
      }
      // Registration: only documents a transport accepts (admission already refused longer ones) and not too large.
      if (Buffer.byteLength(query) <= MAX_STORED_BYTES && !documentRefusal(query)) await store.set(hash, query);
    },
    ...(manifest
      ? {
          onParse({ params }: { params: { source: string | Source } }) {
            const source = typeof params.source === 'string' ? params.source : params.source.body;
            if (!manifest.documents.has(source)) throw requestError(notAllowed(), errorsUrl);
          },
        }
      : {}),
  } as Plugin;
}
