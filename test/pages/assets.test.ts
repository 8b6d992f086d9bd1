import { readFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';

// The pages' browser assets over plain HTTP: which files are served and where (versioned paths from each
// package's own package.json, byte for byte the installed files), their caching (a year, immutable) and their
// compression (gzip, br), and that nothing else of node_modules can be reached. The pages themselves are HTML
// revalidated on every view, naming their assets by those paths and no other host.

const require = createRequire(import.meta.url);

function installed(name: string): { version: string; dir: string } {
  const manifest = require.resolve(`${name}/package.json`);
  return { version: (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version, dir: path.dirname(manifest) };
}

const redoc = installed('redoc');
const graphiql = installed('@graphql-yoga/graphiql');

/** Each asset: its URL and the installed file it must be. */
const ASSETS = [
  { url: `/assets/redoc/${redoc.version}/redoc.standalone.js`, file: path.join(redoc.dir, 'bundles/redoc.standalone.js'), type: 'text/javascript' },
  { url: `/assets/graphiql/${graphiql.version}/yoga-graphiql.umd.js`, file: path.join(graphiql.dir, 'dist/yoga-graphiql.umd.js'), type: 'text/javascript' },
  { url: `/assets/graphiql/${graphiql.version}/graphiql.css`, file: path.join(graphiql.dir, 'dist/graphiql.css'), type: 'text/css' },
  ...['editor.worker', 'json.worker', 'graphql.worker'].map((worker) => ({
    url: `/assets/graphiql/${graphiql.version}/monacoeditorwork/${worker}.bundle.js`,
    // The package names the GraphQL worker's file with a double dot.
    file: path.join(graphiql.dir, `dist/monacoeditorwork/${worker === 'graphql.worker' ? 'graphql.worker.' : worker}.bundle.js`),
    type: 'text/javascript',
  })),
];

const IMMUTABLE = 'public, max-age=31536000, immutable';

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body as sent (still compressed when Content-Encoding says so). */
  body: Buffer;
}

/** A GET with the path sent exactly as written (no normalisation of `..`) and the body left as it came. */
function rawGet(base: string, target: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const request = http.get({ hostname, port, path: target, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

const decoders: Record<string, (body: Buffer) => Buffer> = {
  gzip: (body) => zlib.gunzipSync(body),
  br: (body) => zlib.brotliDecompressSync(body),
};

describe('the assets of the pages', () => {
  const t = useTestApp();

  it('serves Redoc and GraphiQL (script, stylesheet, Monaco workers) from the installed packages under /assets/<package>/<installed version>/, byte for byte, without a key', async () => {
    for (const asset of ASSETS) {
      const res = await rawGet(t.url, asset.url);
      expect(res.status, asset.url).toBe(200);
      expect(res.headers['content-type'], asset.url).toContain(asset.type);
      expect(res.headers['content-encoding'], asset.url).toBeUndefined();
      expect(res.body.equals(readFileSync(asset.file)), `${asset.url} is the installed file`).toBe(true);
    }
  });

  it('lets browsers and caches keep each asset for a year without asking again (Cache-Control: public, max-age=31536000, immutable)', async () => {
    for (const asset of ASSETS) {
      const res = await rawGet(t.url, asset.url, { 'accept-encoding': 'gzip, br' });
      expect(res.headers['cache-control'], asset.url).toBe(IMMUTABLE);
      expect(res.headers['x-content-type-options'], asset.url).toBe('nosniff');
    }
  });

  it('sends each asset compressed with gzip or br, whichever the client accepts, decompressing to the installed file', async () => {
    for (const asset of ASSETS) {
      const original = readFileSync(asset.file);
      for (const encoding of ['gzip', 'br']) {
        const res = await rawGet(t.url, asset.url, { 'accept-encoding': encoding });
        expect(res.status, `${asset.url} ${encoding}`).toBe(200);
        expect(res.headers['content-encoding'], `${asset.url} ${encoding}`).toBe(encoding);
        expect(res.headers.vary, asset.url).toMatch(/accept-encoding/i);
        expect(res.body.length, `${asset.url} ${encoding} is smaller than the file`).toBeLessThan(original.length * 0.6);
        expect(decoders[encoding](res.body).equals(original), `${asset.url} ${encoding} decompresses to the file`).toBe(true);
      }
    }
  });

  it('serves no other file: no other version, no source map, no other file of the packages, no way out of the listed paths', async () => {
    const refused = [
      `/assets/redoc/0.0.1/redoc.standalone.js`,
      `/assets/redoc/${redoc.version}/redoc.standalone.js.map`,
      `/assets/redoc/${redoc.version}/redoc.lib.js`,
      `/assets/redoc/${redoc.version}/`,
      `/assets/redoc/${redoc.version}/REDOC.STANDALONE.JS`,
      `/assets/redoc/${redoc.version}/../../../package.json`,
      `/assets/redoc/${redoc.version}/%2e%2e/%2e%2e/%2e%2e/package.json`,
      `/assets/redoc/${redoc.version}/..%2f..%2f..%2fpackage.json`,
      `/assets/graphiql/${graphiql.version}/yoga-graphiql.es.js`,
      `/assets/graphiql/${graphiql.version}/monacoeditorwork/graphql.worker..bundle.js`,
      `/assets/graphiql/${graphiql.version}/package.json`,
      '/assets/',
      '/node_modules/redoc/package.json',
    ];
    for (const target of refused) {
      const res = await rawGet(t.url, target);
      expect(res.status, target).toBe(404);
      expect(res.headers['cache-control'] ?? '', target).not.toContain('immutable');
      expect(res.body.toString('utf8'), target).not.toMatch(/"version"|"name": "redoc"|webpack/);
    }
  });
});

describe('the pages', () => {
  const t = useTestApp();

  const pages: { path: string; headers: Record<string, string> }[] = [
    { path: '/', headers: {} },
    { path: '/docs', headers: {} },
    // GraphiQL: what a browser gets when it opens /graphql.
    { path: '/graphql', headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } },
  ];

  it('are HTML revalidated on every view (Cache-Control: no-cache), so that a new version of an asset is picked up at once, and need no key', async () => {
    for (const { path: target, headers } of pages) {
      const res = await rawGet(t.url, target, headers);
      expect(res.status, target).toBe(200);
      expect(res.headers['content-type'], target).toMatch(/^text\/html/);
      expect(res.headers['cache-control'], target).toBe('no-cache');
    }
  });

  it('name their assets by the versioned paths and nothing on another host', async () => {
    const sources = async (target: string, headers: Record<string, string>) => {
      const text = (await rawGet(t.url, target, headers)).body.toString('utf8');
      return { text, urls: [...text.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((match) => match[1]) };
    };
    for (const { path: target, headers } of pages) {
      const { urls } = await sources(target, headers);
      for (const url of urls) expect(url, `${target} names ${url}`).toMatch(/^(\/(?!\/)|data:|#)/);
    }
    const docs = await sources('/docs', {});
    expect(docs.urls).toContain(ASSETS[0].url);
    const graphiqlPage = await sources('/graphql', pages[2].headers);
    expect(graphiqlPage.urls).toEqual(expect.arrayContaining([ASSETS[1].url, ASSETS[2].url]));
    // The workers are named in the page's script, for Monaco to start them.
    for (const worker of ASSETS.slice(3)) expect(graphiqlPage.text).toContain(`"${worker.url}"`);
    expect(graphiqlPage.text).not.toMatch(/unpkg\.com|githubusercontent\.com|https?:\/\//);
  });

  it('are sent compressed (the landing page and /docs) when the client accepts gzip or br', async () => {
    for (const target of ['/', '/docs']) {
      const plain = await rawGet(t.url, target);
      for (const encoding of ['gzip', 'br']) {
        const res = await rawGet(t.url, target, { 'accept-encoding': encoding });
        expect(res.headers['content-encoding'], `${target} ${encoding}`).toBe(encoding);
        expect(decoders[encoding](res.body).equals(plain.body), `${target} ${encoding}`).toBe(true);
      }
    }
  });
});
