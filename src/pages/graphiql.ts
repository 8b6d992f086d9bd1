import type { GraphiQLOptions } from 'graphql-yoga';
import { assets, PAGE_CACHE_CONTROL } from './assets.ts';
import { FAVICON, html, scriptLiteral } from './layout.ts';

// GraphiQL at /graphql (a browser's GET asking for HTML): graphql-yoga's page, with every asset served by this
// server (assets.ts) instead of unpkg.com, and the site's inline icon instead of one from GitHub. The page is
// yoga's own (same element ids, same YogaGraphiQL.renderYogaGraphiQL call with yoga's options) except that
// Monaco's workers are loaded from their same-origin URLs directly, where yoga fetches them from unpkg and turns
// them into blob: URLs. The HTML is about 2.5 KB; the assets (2.3 MB compressed) are cached by the browser for a year.

/** Yoga's renderGraphiQL: the page for these options (the options as yoga hands them to its own page). */
export function renderGraphiQL(options: GraphiQLOptions): string {
  const title = options.title || 'Yoga GraphiQL';
  // yoga's page passes GraphiQL a welcome text as the initial query, which hides defaultQuery: the configured
  // default query is shown instead, unless the options name a query themselves.
  const shown = options.defaultQuery && !('query' in options) ? { ...options, query: options.defaultQuery } : options;
  const workers = Object.fromEntries(Object.entries(assets.graphiql.workers).map(([label, worker]) => [label, worker.url]));
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" href="${FAVICON}">
<link rel="stylesheet" href="${assets.graphiql.css.url}">
</head>
<body id="body" class="no-focus-outline">
<noscript>GraphiQL needs JavaScript. Without it, POST {"query": "..."} to /graphql as JSON with the header Authorization: Bearer &lt;API key&gt;.</noscript>
<div id="root">Loading ${title}…</div>
<script>
self.MonacoEnvironment = {
  globalAPI: false,
  getWorkerUrl: function (_moduleId, label) {
    var workers = ${scriptLiteral(workers)};
    return workers[label] || workers.editorWorkerService;
  },
};
</script>
<script src="${assets.graphiql.script.url}"></script>
<script>YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), ${scriptLiteral(shown)});</script>
</body>
</html>
`.value;
}

/**
 * yoga's `graphiql` and `renderGraphiQL` options for GET /graphql: the page above with Fieldline's title, headers
 * and first query, answered with the pages' Cache-Control (revalidated each time, so that an upgrade's new asset
 * paths are seen at once). The key pasted into the headers editor is not persisted (GraphiQL's own default; yoga's
 * page turns it on).
 */
export function graphiqlIde<Context extends { res: { setHeader(name: string, value: string): unknown } }>() {
  const options: GraphiQLOptions = {
    title: 'Fieldline GraphQL',
    headers: JSON.stringify({ Authorization: 'Bearer <API key>' }, null, 2),
    defaultQuery: [
      '# Put your API key in the Headers tab below:',
      '#   {"Authorization": "Bearer svc_..."}',
      '# then run the query with the play button (Ctrl-Enter),',
      '# and load the schema (docs, completion) with the re-fetch button (bottom left).',
      '{\n  me {\n    account { name }\n    key { scopes }\n    apiVersion\n  }\n}\n',
    ].join('\n'),
    shouldPersistHeaders: false,
  };
  return {
    graphiql: (_request: Request, context: Context): GraphiQLOptions => {
      context.res.setHeader('Cache-Control', PAGE_CACHE_CONTROL);
      return options;
    },
    renderGraphiQL,
  };
}
