import express, { type Router } from 'express';
import { assetRouter, compress, PAGE_CACHE_CONTROL } from './assets.ts';
import { BOARD_CSP, boardPage } from './board.ts';
import { DOCS_CSP, docsPage } from './docs.ts';
import { landingPage } from './landing.ts';
import { llmsText } from './llms.ts';
import { sendPage, SHELL_CSP, type PagesConfig } from './layout.ts';

// The server's own pages: GET / (landing page), GET /llms.txt (the index for language-model tools: llms.ts), GET /docs (API reference; /api/v2/docs leads there), GET /board
// (the live dispatch board, whose key is entered in the page: see board.ts) and the versioned assets under
// /assets (Redoc, GraphiQL's, whose page yoga answers at /graphql: see graphiql.ts, and the board's scripts).
// Public: no key is read. The pages are rendered once; they are sent compressed with Cache-Control: no-cache
// (revalidated on every view), the assets compressed once and immutable for a year.

export function pagesRouter(config: PagesConfig): Router {
  const router = express.Router({ caseSensitive: true });
  const landing = landingPage(config);
  const docs = docsPage();
  const board = boardPage();
  router.get('/', compress, (_req, res) => sendPage(res, landing, { cacheControl: PAGE_CACHE_CONTROL, csp: SHELL_CSP }));
  router.get('/docs', compress, (_req, res) => sendPage(res, docs, { cacheControl: PAGE_CACHE_CONTROL, csp: DOCS_CSP }));
  const llms = llmsText(config);
  router.get('/llms.txt', (_req, res) => {
    res.setHeader('Cache-Control', PAGE_CACHE_CONTROL);
    res.type('text/markdown; charset=utf-8').send(llms);
  });
  router.get('/board', compress, (_req, res) => sendPage(res, board, { cacheControl: PAGE_CACHE_CONTROL, csp: BOARD_CSP }));
  // Where a partner looks for the reference beside the document (/api/v2/openapi.json): a page, not an operation.
  router.get('/api/v2/docs', (_req, res) => res.redirect(301, `${config.PUBLIC_URL ?? ''}/docs`));
  router.use(assetRouter());
  return router;
}
