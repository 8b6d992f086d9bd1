import type { GraphiQLOptions } from 'graphql-yoga';
import { assets, PAGE_CACHE_CONTROL } from './assets.ts';
import { FAVICON, html, scriptLiteral } from './layout.ts';

// GraphiQL at /graphql (a browser's GET asking for HTML): graphql-yoga's page, with every asset served by this
// server (assets.ts) instead of unpkg.com, and the site's inline icon instead of one from GitHub. The page is
// yoga's own (same element ids, same YogaGraphiQL.renderYogaGraphiQL call with yoga's options) except that
// Monaco's workers are loaded from their same-origin URLs directly, where yoga fetches them from unpkg and turns
// them into blob: URLs, and GraphiQL is rendered once the person has given an API key (a small form first, as the
// board has), with the key in its headers, so that its first request, the schema's introspection, carries it.
// The HTML is about 3.5 KB; the assets (2.3 MB compressed) are cached by the browser for a year.

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
<section id="key-section" aria-labelledby="key-heading" hidden style="max-width: 40rem; margin: 3rem auto; font-family: system-ui, sans-serif; line-height: 1.5">
<h1 id="key-heading" style="font-size: 1.4rem">${title}</h1>
<form id="key-form" autocomplete="off" style="display: flex; flex-wrap: wrap; gap: .5rem; align-items: center">
<label for="key-input">API key</label>
<input id="key-input" type="password" spellcheck="false" autocomplete="off" required placeholder="svc_…" style="min-width: 22rem; font: inherit; padding: .3rem .5rem">
<button type="submit">Open GraphiQL</button>
</form>
<p>Every operation, the schema's introspection included, needs a key of your account. It goes into GraphiQL's
Headers tab as <code>Authorization: Bearer …</code>, so the schema (docs, completion) loads with it. It stays in this
browser tab only (sessionStorage): never in the address, never in GraphiQL's saved state.</p>
</section>
<div id="root"></div>
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
<script>
(function () {
  var options = ${scriptLiteral(shown)};
  var STORED = 'fieldline.graphiql.key';
  var section = document.getElementById('key-section');
  function open(key) {
    section.hidden = true;
    var headers = { Authorization: 'Bearer ' + key };
    YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), Object.assign({}, options, { headers: JSON.stringify(headers, null, 2) }));
  }
  var saved = sessionStorage.getItem(STORED);
  if (saved) return open(saved);
  section.hidden = false;
  document.getElementById('key-input').focus();
  document.getElementById('key-form').addEventListener('submit', function (event) {
    event.preventDefault();
    var key = document.getElementById('key-input').value.trim();
    if (!key) return;
    sessionStorage.setItem(STORED, key);
    open(key);
  });
})();
</script>
</body>
</html>
`.value;
}

/**
 * yoga's `graphiql` and `renderGraphiQL` options for GET /graphql: the page above with Fieldline's title, headers
 * and first query, answered with the pages' Cache-Control (revalidated each time, so that an upgrade's new asset
 * paths are seen at once). The headers editor's content is not persisted (GraphiQL's own default; yoga's page turns
 * it on): the key is kept by the page's form, in sessionStorage.
 */
export function graphiqlIde<Context extends { res: { setHeader(name: string, value: string): unknown } }>() {
  const options: GraphiQLOptions = {
    title: 'Fieldline GraphQL',
    defaultQuery: [
      '# Your key is in the Headers tab: {"Authorization": "Bearer svc_..."}.',
      '# Run the query with the play button (Ctrl-Enter);',
      '# the docs (book icon) and completion come from the schema.',
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
