import { VERSION_HEADER } from '../kernel/versioning.ts';
import { html, page, type PagesConfig } from './layout.ts';

// GET /: what this server is and where to go next. The same for everyone (no key is read, none is shown), so it
// is rendered once. Its addresses are paths on this server; the curl example uses PUBLIC_URL when it is set
// (never the request's Host header, which the client chooses).

/** The landing page's links: path, name, what is there. */
export const landingLinks = [
  { href: '/docs', name: 'API reference', about: 'REST API v2, under /api/v2: every operation with its parameters, bodies, responses and errors, rendered from the live OpenAPI document.' },
  { href: '/graphql', name: 'GraphiQL', about: 'Write and run GraphQL queries and mutations against /graphql in the browser, with the schema documentation beside them.' },
  { href: '/board', name: 'Dispatch board', about: "The day's jobs in one column per technician, kept live; drag a card to reassign or reschedule it. Needs an API key with jobs:read and jobs:write." },
  { href: '/api/v2/openapi.json', name: 'OpenAPI document', about: 'OpenAPI 3.1 (JSON) of the REST API: generate a client from it or import it into your HTTP tool.' },
  { href: '/api/v2/asyncapi.json', name: 'AsyncAPI document', about: 'AsyncAPI 3.0 (JSON) of the events: every webhook topic and its body, and the GraphQL subscriptions.' },
  { href: '/llms.txt', name: 'llms.txt', about: 'A short index of the API for language-model tools and agents: the documents, and the MCP endpoint at /mcp (Streamable HTTP, tools generated from the same declarations, only those the key may call).' },
  { href: '/errors', name: 'Error catalog', about: 'Every error code the API answers (the code of a problem+json answer, extensions.code in GraphQL): what it means and what to do.' },
  { href: '/healthz', name: 'Health', about: 'Whether this server is up.' },
] as const;

export function landingPage(config: PagesConfig): string {
  const base = config.PUBLIC_URL ?? '$FIELDLINE_URL';
  return page({
    title: 'Field-service management API',
    description: 'Fieldline: a multi-tenant field-service management API (REST and GraphQL).',
    body: html`
<p>Fieldline is a multi-tenant field-service management API: customers, sites, contacts, jobs, estimates, invoices
and payments for HVAC, plumbing, electrical and maintenance companies. Each company is an account whose data only
its own API keys can reach. Integrations use the REST API under <code>/api/v2</code>; the same data is available
through GraphQL at <code>/graphql</code>, and agents reach it through the Model Context Protocol at
<code>/mcp</code> (see <a href="/llms.txt">llms.txt</a>).</p>

<h2>Start here</h2>
<table>
<tbody>
${landingLinks.map((link) => html`<tr><th><a href="${link.href}">${link.name}</a></th><td>${link.about}</td></tr>
`)}</tbody>
</table>

<h2>Authenticate</h2>
<p>Every API request carries an API key of your account in the <code>Authorization</code> header (the OpenAPI
document and these pages need none):</p>
<pre>curl -H "Authorization: Bearer $FIELDLINE_API_KEY" ${base}/api/v2/me</pre>
${config.PUBLIC_URL ? '' : html`<p class="muted"><code>$FIELDLINE_URL</code> is this server's address, for example <code>http://localhost:3000</code>.</p>`}
<p>Responses follow the API version of the key; send <code>${VERSION_HEADER}: YYYY-MM-DD</code> to ask for another
supported version. Errors are <code>application/problem+json</code> with a <code>code</code> from the
<a href="/errors">error catalog</a>.</p>

<h2>GraphiQL and your key</h2>
<p>Open <a href="/graphql">GraphiQL</a>, choose the <strong>Headers</strong> tab below the query editor and paste</p>
<pre>{"Authorization": "Bearer svc_…"}</pre>
<p>with your key in place of <code>svc_…</code>, then run the query (the ▶ button, or Ctrl-Enter). The key stays in
that browser tab: the page neither stores it nor sends it anywhere but this server's <code>/graphql</code>.</p>
`,
  });
}
