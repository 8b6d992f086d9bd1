import express, { type Router } from 'express';
import type { GraphQLFormattedError } from 'graphql';
import http from 'node:http';
import { fieldError } from '../graphql/schema/errors.ts';
import { userErrorsOf } from '../graphql/schema/user-errors.ts';
import { wireText } from '../kernel/api-text.ts';
import { errorDocs, type ErrorDoc } from './error-docs.ts';
import { AppError, docSlug, errorCatalog, isInputError, type ErrorCode } from '../kernel/errors.ts';
import { compress } from './assets.ts';
import { html, page, sendPage, SHELL_CSP, type Html, type PagesConfig } from './layout.ts';

// The error pages every problem links to: `type` is <ERRORS_URL>/<code> and `doc_url` <ERRORS_URL>/<slug>, and
// ERRORS_URL defaults to these pages (<PUBLIC_URL>/errors, or /errors). GET /errors lists every code of the catalog
// grouped by its prefix; GET /errors/<code> and GET /errors/<slug> answer the same page: title, HTTP status, when
// it happens, how to fix it and an example of what the server sends, built with the functions that build the real
// answers (GraphQL's error and userErrors shapes) from src/pages/error-docs.ts. Public (no key), cached briefly.
// Every page is rendered once, when the router is built: they depend on the configuration only.

const CACHE_CONTROL = 'public, max-age=300';
const EXAMPLE_REQUEST_ID = '0190f7a2-5b1c-7d3e-8f4a-2b6c9d0e1f23';

const codes = Object.keys(errorCatalog) as ErrorCode[];

/** Text with `code spans`, as the docs write it, in HTML (escaped). */
function prose(text: string): Html {
  return html`${text.split('`').map((part, i) => (i % 2 === 1 ? html`<code>${part}</code>` : part))}`;
}

function statusLine(status: number): string {
  return `${status} ${http.STATUS_CODES[status] ?? ''}`.trim();
}

function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/** The problem+json body of a code's example, as src/http/problem.ts renders an AppError. */
function problemBody(code: ErrorCode, doc: ErrorDoc, errorsUrl: string): Record<string, unknown> {
  const { status, title } = errorCatalog[code];
  const { example } = doc;
  return {
    type: `${errorsUrl}/${code}`,
    title,
    status,
    code,
    detail: example.detail === null ? null : wireText(example.detail),
    instance: example.instance ?? '/api/v2',
    request_id: EXAMPLE_REQUEST_ID,
    doc_url: `${errorsUrl}/${docSlug(code)}`,
    ...example.fields,
  };
}

/** The code's example error as GraphQL answers it (message, extensions with the code, status, title, docUrl ...). */
function graphqlError(code: ErrorCode, doc: ErrorDoc, errorsUrl: string): GraphQLFormattedError {
  const error = new AppError(code, doc.example.detail, doc.example.fields ?? {});
  return fieldError(null, error, errorsUrl, EXAMPLE_REQUEST_ID).toJSON();
}

function restExample(code: ErrorCode, doc: ErrorDoc, errorsUrl: string): Html {
  const headers = { 'Content-Type': 'application/problem+json', ...doc.example.headers };
  const head = [`HTTP/1.1 ${statusLine(errorCatalog[code].status)}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)].join('\n');
  return html`<h2>Example</h2>
<pre id="example-problem"><code>${head}

${json(problemBody(code, doc, errorsUrl))}</code></pre>`;
}

function graphqlSection(code: ErrorCode, doc: ErrorDoc, errorsUrl: string): Html | null {
  if (!doc.apis.includes('graphql')) return null;
  const error = graphqlError(code, doc, errorsUrl);
  const { status } = errorCatalog[code];
  if (doc.websocket === 'error') {
    return html`<h2>Example</h2>
<p>The <code>error</code> message that answers the <code>subscribe</code> (graphql-ws protocol):</p>
<pre id="example-graphql"><code>${json({ id: '1', type: 'error', payload: [error] })}</code></pre>`;
  }
  if (doc.websocket) {
    return html`<h2>Example</h2>
<p>The WebSocket is closed with code ${doc.websocket.close} and the code as the close reason:</p>
<pre id="example-graphql"><code>${json({ code: doc.websocket.close, reason: code })}</code></pre>`;
  }
  if (!doc.apis.includes('rest')) {
    return html`<h2>Example</h2>
<p>Over HTTP the answer has status ${statusLine(status)} and no <code>data</code>; over the GraphQL WebSocket the same
error arrives in an <code>error</code> message. (Every answer over HTTP also carries <code>extensions.cost</code>.)</p>
<pre id="example-graphql"><code>${json({ errors: [error] })}</code></pre>`;
  }
  if (isInputError(code)) {
    const userErrors = userErrorsOf(new AppError(code, doc.example.detail, doc.example.fields ?? {}), { id: 'id', input: 'input', ifMatch: 'ifMatch' });
    return html`<h2>Over GraphQL</h2>
<p>A mutation answers it in its payload's <code>userErrors</code> (HTTP 200; nothing is written and the payload's record
fields are null). Elsewhere it is an error with <code>extensions.code</code> <code>${code}</code>, as below.</p>
<pre id="example-user-errors"><code>${json({ userErrors })}</code></pre>
<pre id="example-graphql"><code>${json({ errors: [error] })}</code></pre>`;
  }
  return html`<h2>Over GraphQL</h2>
<p>An error with <code>extensions.code</code> <code>${code}</code>: the problem's fields are in <code>extensions</code>, in
camelCase. An error of the whole request (authentication, rate limit, the request's body) answers HTTP ${status} with no
<code>data</code>; an error of one field answers HTTP 200 with that field null.</p>
<pre id="example-graphql"><code>${json({ errors: [error] })}</code></pre>`;
}

function apiNames(doc: ErrorDoc): string {
  if (doc.websocket) return 'GraphQL WebSocket';
  return doc.apis.map((api) => (api === 'rest' ? 'REST' : 'GraphQL')).join(' and ');
}

function codePage(code: ErrorCode, config: PagesConfig): string {
  const { status, title } = errorCatalog[code];
  const doc = errorDocs[code];
  const errorsUrl = config.ERRORS_URL;
  const body = html`<table>
<tr><th>Code</th><td><code>${code}</code></td></tr>
<tr><th>HTTP status</th><td>${statusLine(status)}</td></tr>
<tr><th>Answered by</th><td>${apiNames(doc)}</td></tr>
<tr><th><code>type</code></th><td><code>${errorsUrl}/${code}</code></td></tr>
<tr><th><code>doc_url</code></th><td><code>${errorsUrl}/${docSlug(code)}</code></td></tr>
</table>
<h2>When it happens</h2>
<p>${prose(doc.when)}</p>
<h2>How to fix it</h2>
<p>${prose(doc.fix)}</p>
${doc.apis.includes('rest') ? restExample(code, doc, errorsUrl) : ''}
${graphqlSection(code, doc, errorsUrl)}
<p><a href="${`${config.PUBLIC_URL ?? ''}/errors`}">All error codes</a></p>`;
  return page({ title, body, description: `Fieldline API error ${code} (HTTP ${status}): ${title}.` });
}

/** Codes by their prefix (auth, account, resource ...), in catalog order. */
function groups(): Map<string, ErrorCode[]> {
  const out = new Map<string, ErrorCode[]>();
  for (const code of codes) {
    const prefix = code.split('.')[0];
    out.set(prefix, [...(out.get(prefix) ?? []), code]);
  }
  return out;
}

function codeTable(list: readonly ErrorCode[], errorsUrl: string): Html {
  return html`<table>
<thead><tr><th>Code</th><th>Status</th><th>Title</th></tr></thead>
<tbody>
${list.map((code) => html`<tr><td><a href="${`${errorsUrl}/${docSlug(code)}`}"><code>${code}</code></a></td><td>${errorCatalog[code].status}</td><td>${errorCatalog[code].title}</td></tr>
`)}</tbody>
</table>`;
}

function indexPage(config: Pick<PagesConfig, 'ERRORS_URL'>): string {
  const errorsUrl = config.ERRORS_URL;
  const body = html`<p>Every error answer of the REST API is <code>application/problem+json</code> (RFC 9457):
<code>type</code>, <code>title</code>, <code>status</code>, <code>code</code>, <code>detail</code>, <code>instance</code>,
<code>request_id</code> and <code>doc_url</code>, and for some codes a few more fields. <code>code</code> is the stable
machine code to act on; <code>type</code> (<code>${errorsUrl}/&lt;code&gt;</code>) and <code>doc_url</code>
(<code>${errorsUrl}/&lt;code with dots and underscores as dashes&gt;</code>) lead to the code's page below. GraphQL
answers the same codes in <code>extensions.code</code>, with the page in <code>extensions.docUrl</code>. Codes are
stable across API versions: new ones may be added, none is renamed or removed within a version.</p>
<p>Quote the <code>request_id</code> (also in the <code>X-Request-Id</code> header) when you contact support.</p>
${[...groups()].map(([prefix, list]) => html`<h2 id="${prefix}"><code>${prefix}</code></h2>
${codeTable(list, errorsUrl)}
`)}`;
  return page({ title: 'Error codes', body, description: 'Every error code of the Fieldline API: its HTTP status, when it happens and how to fix it.' });
}

function notFoundPage(requested: string, config: PagesConfig): string {
  // The codes of the group the request names, in either spelling (auth.nope, rate-limit-exceded).
  const asked = docSlug(requested);
  const related = codes.filter((code) => asked.startsWith(`${docSlug(code.split('.')[0])}-`));
  const body = html`<p>There is no error code <code>${requested}</code>.</p>
${related.length > 0 ? html`<p>Codes starting with <code>${related[0].split('.')[0]}</code>:</p>${codeTable(related, config.ERRORS_URL)}` : ''}
<p><a href="${`${config.PUBLIC_URL ?? ''}/errors`}">All error codes</a></p>`;
  return page({ title: 'Unknown error code', body });
}

/** The router of /errors (mount it there): the index and one page per code at its slug (doc_url); its code (type) redirects there. */
export function errorPages(config: PagesConfig): Router {
  const pages = new Map<string, string>();
  for (const code of codes) {
    const rendered = codePage(code, config);
    // Two codes with one slug (a.b_c and a_b.c) would share a doc_url: refuse to start rather than serve one for both.
    if (pages.has(docSlug(code))) throw new Error(`error pages: the slug ${docSlug(code)} of ${code} is taken`);
    pages.set(docSlug(code), rendered);
  }
  const index = indexPage(config);
  const router = express.Router({ caseSensitive: true });
  // The pages load nothing and run no script (SHELL_CSP).
  const send = (res: express.Response, status: number, body: string) => sendPage(res, body, { status, cacheControl: CACHE_CONTROL, csp: SHELL_CSP });
  router.get('/', compress, (_req, res) => send(res, 200, index));
  router.get('/:code', compress, (req, res) => {
    const code = String(req.params.code);
    const found = pages.get(code);
    if (found !== undefined) return send(res, 200, found);
    // A problem's `type` (/errors/precondition.failed) is the code's identifier; its page lives at the `doc_url`
    // (/errors/precondition-failed), one URL per page. The type redirects there, permanently (a relative reference:
    // right behind any proxy or PUBLIC_URL).
    if (Object.hasOwn(errorCatalog, code)) {
      res.setHeader('Cache-Control', CACHE_CONTROL);
      return res.redirect(301, docSlug(code));
    }
    send(res, 404, notFoundPage(code, config));
  });
  return router;
}
