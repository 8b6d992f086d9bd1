import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import compression from 'compression';
import { build, stop } from 'esbuild';
import express, { type Router } from 'express';
import { EncodedBody } from '../http/encoded-body.ts';

// The browser assets of the server's pages (Redoc for /docs, GraphiQL for /graphql), served straight from the
// installed packages: nothing is copied into the repository. Each asset's path carries its package's version
// (/assets/redoc/2.5.4/redoc.standalone.js), read from the package's own package.json, so an asset's bytes never
// change under one URL: it is cached for a year as immutable, and an upgrade changes the paths the (never
// cached) HTML pages refer to. Only the files listed here are served; any other path under /assets is not ours.
// Our own browser script (the dispatch board's, TypeScript in src/pages/board/) is bundled by esbuild when this
// module is loaded, kept in memory and served the same way, under a hash of its bytes instead of a package version.

const require = createRequire(import.meta.url);

interface Package {
  /** The URL segment: /assets/<segment>/<version>/... */
  segment: string;
  version: string;
  dir: string;
}

function installed(name: string, segment: string): Package {
  const manifest = require.resolve(`${name}/package.json`);
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  return { segment, version, dir: path.dirname(manifest) };
}

const redoc = installed('redoc', 'redoc');
const graphiql = installed('@graphql-yoga/graphiql', 'graphiql');
const graphqlWs = installed('graphql-ws', 'graphql-ws');

/**
 * The dispatch board's script: src/pages/board/main.ts and the modules it imports, bundled into one classic
 * script (an IIFE, for the page's <script defer>) for the browsers that have <dialog> (ES2020), minified; it
 * starts with "use strict" (tsconfig.json's strict). esbuild's service (a child process) is stopped once the
 * bundle is built: nothing else of the server uses it.
 */
async function bundleBoard(): Promise<Buffer> {
  try {
    const result = await build({
      entryPoints: [path.join(import.meta.dirname, 'board', 'main.ts')],
      bundle: true,
      write: false,
      format: 'iife',
      platform: 'browser',
      target: 'es2020',
      minify: true,
    });
    return Buffer.from(result.outputFiles[0].contents);
  } finally {
    await stop();
  }
}

/** Bytes of ours, built in memory: /assets/<segment>/<version>/..., the version the first 16 hex digits of their SHA-256. */
interface Built {
  segment: string;
  version: string;
  bytes: Buffer;
}

function ours(bytes: Buffer, segment: string): Built {
  return { segment, version: createHash('sha256').update(bytes).digest('hex').slice(0, 16), bytes };
}

// Built once, when the server's modules load, before any page names it.
const boardScript = ours(await bundleBoard(), 'board');

/** One served file: its URL and how its bytes are read (a file of the package, or bytes of ours). */
interface Asset {
  url: string;
  type: string;
  load: () => Promise<Buffer>;
}

function asset(pkg: Package, name: string, file: string, type: string): Asset {
  const from = path.join(pkg.dir, file);
  return { url: `/assets/${pkg.segment}/${pkg.version}/${name}`, type, load: () => readFile(from) };
}

function builtAsset(built: Built, name: string, type: string): Asset {
  return { url: `/assets/${built.segment}/${built.version}/${name}`, type, load: () => Promise.resolve(built.bytes) };
}

const js = 'text/javascript; charset=utf-8';

/** The URLs the pages refer to. */
export const assets = {
  redoc: {
    version: redoc.version,
    script: asset(redoc, 'redoc.standalone.js', 'bundles/redoc.standalone.js', js),
  },
  graphiql: {
    version: graphiql.version,
    script: asset(graphiql, 'yoga-graphiql.umd.js', 'dist/yoga-graphiql.umd.js', js),
    css: asset(graphiql, 'graphiql.css', 'dist/graphiql.css', 'text/css; charset=utf-8'),
    /** Monaco's workers, by the label Monaco asks for (MonacoEnvironment.getWorkerUrl). */
    workers: {
      editorWorkerService: asset(graphiql, 'monacoeditorwork/editor.worker.bundle.js', 'dist/monacoeditorwork/editor.worker.bundle.js', js),
      json: asset(graphiql, 'monacoeditorwork/json.worker.bundle.js', 'dist/monacoeditorwork/json.worker.bundle.js', js),
      // The package's file name has the double dot; the URL does not need it.
      graphql: asset(graphiql, 'monacoeditorwork/graphql.worker.bundle.js', 'dist/monacoeditorwork/graphql.worker..bundle.js', js),
    },
  },
  /** The graphql-ws browser client (global `graphqlWs`), for the dispatch board's live updates. */
  graphqlWs: {
    version: graphqlWs.version,
    script: asset(graphqlWs, 'graphql-ws.min.js', 'umd/graphql-ws.min.js', js),
  },
  /** The dispatch board's own script (src/pages/board/, bundled above). */
  board: {
    version: boardScript.version,
    script: builtAsset(boardScript, 'board.js', js),
  },
} as const;

const served: Asset[] = [
  assets.redoc.script,
  assets.graphiql.script,
  assets.graphiql.css,
  ...Object.values(assets.graphiql.workers),
  assets.graphqlWs.script,
  assets.board.script,
];

/** Cache-Control of the server's HTML pages: revalidated on every view, so a new version's asset paths are seen at once. */
export const PAGE_CACHE_CONTROL = 'no-cache';
/** Cache-Control of a versioned asset (a year, the longest HTTP caches honour, and never revalidated). */
export const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/**
 * Compressed responses (gzip or br, as the client accepts) for the pages (a few KB); used per route so that it
 * applies to nothing else of the app. The assets are compressed once instead (EncodedBody).
 */
export const compress = compression();

/** GET (and HEAD) of each listed asset, compressed, with the immutable Cache-Control; nothing else. */
export function assetRouter(): Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  for (const { url, type, load } of served) {
    const encoded = new EncodedBody(load);
    router.get(url, async (req, res, next) => {
      try {
        res.setHeader('X-Content-Type-Options', 'nosniff');
        res.setHeader('Cache-Control', ASSET_CACHE_CONTROL);
        await encoded.send(req, res, type);
      } catch (error) {
        next(error);
      }
    });
  }
  return router;
}
