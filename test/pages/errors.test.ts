import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docSlug, errorCatalog, type ErrorCode } from '../../src/kernel/errors.ts';
import { startTestApp, useTenant, useTestApp, type TestApp } from '../helpers/app.ts';
import { ALLOWED_EXTRAS, ENVELOPE, ERRORS_URL, expectProblem } from '../helpers/problem.ts';

// The error pages every problem links to (src/pages/errors.ts): problem `type` (<ERRORS_URL>/<code>) and `doc_url`
// (<ERRORS_URL>/<slug>), and GraphQL's extensions.docUrl, lead to a page of the server's own that names the code,
// says when it happens and how to fix it, and shows an example of the answer. Black box, over HTTP.

const codes = Object.keys(errorCatalog) as ErrorCode[];
/** The code of each slug (the last segment of a doc_url). */
const codeOfSlug = new Map(codes.map((code) => [docSlug(code), code]));
const MISSING_ID = '0190f7a2-5b1c-7d3e-8f4a-2b6c9d0e1f23';

interface Page {
  status: number;
  headers: Headers;
  text: string;
}

async function getPage(url: string, init?: RequestInit): Promise<Page> {
  const res = await fetch(url, init);
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const entities: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

function unescapeHtml(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (entity) => entities[entity]);
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** The text of `<pre id="...">` on a page, unescaped; null when the page has none. */
function preText(html: string, id: string): string | null {
  const match = new RegExp(`<pre id="${id}"><code>([\\s\\S]*?)</code></pre>`).exec(html);
  return match ? unescapeHtml(match[1]) : null;
}

/** The example HTTP answer on a code's page: its status line, headers and problem body. */
function exampleProblem(html: string): { head: string[]; body: Record<string, any> } | null {
  const text = preText(html, 'example-problem');
  if (text === null) return null;
  const [head, body] = text.split('\n\n');
  return { head: head.split('\n'), body: JSON.parse(body) };
}

function hrefs(html: string): string[] {
  return [...html.matchAll(/href="([^"]*)"/g)].map((match) => unescapeHtml(match[1]));
}

/** Asserts that `page` is the HTML page of `code`: its code, title, status and the two sections. */
function expectCodePage(page: Page, code: ErrorCode, context = ''): void {
  expect(page.status, `${code} ${context}`).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  const { status, title } = errorCatalog[code];
  expect(page.text).toContain(`<code>${code}</code>`);
  expect(page.text).toContain(`<h1>${escapeHtml(title)}</h1>`);
  expect(page.text).toMatch(new RegExp(`<th>HTTP status</th><td>${status} `));
  expect(page.text).toContain('<h2>When it happens</h2>');
  expect(page.text).toContain('<h2>How to fix it</h2>');
}

describe('with the default ERRORS_URL (no PUBLIC_URL): relative links to the server\'s own pages', () => {
  const t = useTestApp();
  const { api, gql } = useTenant(t);
  /** A link a client received, resolved against the URL of the server that sent it. */
  const resolve = (link: string) => new URL(link, t.url).toString();

  it('defaults ERRORS_URL to the relative reference /errors', () => {
    expect(ERRORS_URL).toBe('/errors');
    expect(t.config.ERRORS_URL).toBe('/errors');
  });

  it('a request without a key answers auth.missing_token whose type and doc_url open the page of that code', async () => {
    const problem = expectProblem(await t.client(null).get('/customers'), { status: 401, code: 'auth.missing_token' });
    for (const link of [problem.type, problem.doc_url]) expectCodePage(await getPage(resolve(link)), 'auth.missing_token', link);
  });

  it('a record id that does not exist answers resource.not_found whose type and doc_url open the page of that code', async () => {
    const problem = expectProblem(await api.get(`/customers/${MISSING_ID}`), { status: 404, code: 'resource.not_found' });
    for (const link of [problem.type, problem.doc_url]) expectCodePage(await getPage(resolve(link)), 'resource.not_found', link);
  });

  it('a validation error answers validation.failed whose type and doc_url open the page of that code', async () => {
    const res = await api.post('/customers', { customer: { organization: '' } });
    const problem = expectProblem(res, { status: 422, code: 'validation.failed', errors: { organization: true } });
    for (const link of [problem.type, problem.doc_url]) expectCodePage(await getPage(resolve(link)), 'validation.failed', link);
  });

  it('a list parameter error and a too large limit open their pages too (filter.invalid, pagination.limit_too_large)', async () => {
    const filter = expectProblem(await api.get('/customers?colour=red'), { status: 400, code: 'filter.invalid' });
    expectCodePage(await getPage(resolve(filter.doc_url)), 'filter.invalid');
    const limit = expectProblem(await api.get('/customers?limit=500'), { status: 400, code: 'pagination.limit_too_large' });
    expectCodePage(await getPage(resolve(limit.doc_url)), 'pagination.limit_too_large');
  });

  it('the example on a code\'s page has exactly the fields of the real problem of that code', async () => {
    const real = [
      expectProblem(await t.client(null).get('/customers'), { status: 401, code: 'auth.missing_token' }),
      expectProblem(await api.get(`/customers/${MISSING_ID}`), { status: 404, code: 'resource.not_found' }),
      expectProblem(await api.post('/customers', { customer: { organization: '' } }), { status: 422, code: 'validation.failed' }),
      expectProblem(await api.get('/customers?limit=500'), { status: 400, code: 'pagination.limit_too_large' }),
      expectProblem(await api.get('/customers?sort=name'), { status: 400, code: 'sort.invalid' }),
    ];
    for (const problem of real) {
      const example = exampleProblem((await getPage(resolve(problem.doc_url))).text)!;
      expect(Object.keys(example.body), problem.code).toEqual(Object.keys(problem));
      expect(example.body.type).toBe(problem.type);
      expect(example.body.doc_url).toBe(problem.doc_url);
    }
  });

  it('a GraphQL request without a key carries extensions.docUrl that opens the page of auth.missing_token', async () => {
    const res = await t.graphql(null)('{ me { apiVersion } }');
    expect(res.status).toBe(401);
    const [error] = res.body.errors!;
    expect(error.extensions).toMatchObject({ code: 'auth.missing_token', docUrl: '/errors/auth-missing-token' });
    expectCodePage(await getPage(resolve(error.extensions!.docUrl)), 'auth.missing_token');
  });

  it('a GraphQL field error carries extensions.docUrl that opens the page of its code', async () => {
    const res = await gql('{ customers(first: 500) { nodes { id } } }');
    const [error] = res.body.errors!;
    expect(error.extensions).toMatchObject({ code: 'pagination.limit_too_large', docUrl: '/errors/pagination-limit-too-large' });
    expectCodePage(await getPage(resolve(error.extensions!.docUrl)), 'pagination.limit_too_large');
  });

  it('a GraphQL operation over a limit carries extensions.docUrl that opens the page of its GraphQL-only code', async () => {
    let selection = 'id';
    for (let i = 0; i < 6; i++) selection = `customer { sites { nodes { ${selection} } } }`;
    const res = await gql(`{ customers { nodes { sites { nodes { ${selection} } } } } }`);
    expect(res.status).toBe(400);
    const [error] = res.body.errors!;
    expect(error.extensions).toMatchObject({ code: 'graphql.depth_exceeded', docUrl: '/errors/graphql-depth-exceeded' });
    const page = await getPage(resolve(error.extensions!.docUrl));
    expectCodePage(page, 'graphql.depth_exceeded');
    expect(page.text).toContain('GraphQL only');
  });

  it('every catalog code has one page, at its slug (as in doc_url); its code (as in type) redirects there permanently', async () => {
    for (const code of codes) {
      const bySlug = await getPage(`${t.url}/errors/${docSlug(code)}`);
      expectCodePage(bySlug, code, 'by slug');
      const byCode = await fetch(`${t.url}/errors/${code}`, { redirect: 'manual' });
      expect(byCode.status, code).toBe(301);
      expect(new URL(byCode.headers.get('location')!, `${t.url}/errors/${code}`).href, code).toBe(`${t.url}/errors/${docSlug(code)}`);
      expect((await getPage(`${t.url}/errors/${code}`)).text, code).toBe(bySlug.text);
    }
  });

  it('every page that answers over REST shows an example problem with the envelope, the code\'s own fields and headers', async () => {
    for (const code of codes) {
      const page = await getPage(`${t.url}/errors/${docSlug(code)}`);
      const example = exampleProblem(page.text);
      if (example === null) {
        // Codes only GraphQL answers show the GraphQL answer instead.
        expect(page.text, code).toContain('GraphQL');
        expect(preText(page.text, 'example-graphql'), code).not.toBeNull();
        continue;
      }
      const { status, title } = errorCatalog[code];
      expect(example.head[0], code).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(example.head, code).toContain('Content-Type: application/problem+json');
      expect(Object.keys(example.body).slice(0, ENVELOPE.length), code).toEqual(ENVELOPE);
      for (const extra of Object.keys(example.body).slice(ENVELOPE.length)) expect(ALLOWED_EXTRAS.has(extra), `${code}: ${extra}`).toBe(true);
      expect(example.body).toMatchObject({ type: `/errors/${code}`, title, status, code, doc_url: `/errors/${docSlug(code)}` });
      expect(example.body.detail === null || typeof example.body.detail === 'string', code).toBe(true);
      expect(example.body.instance, code).toMatch(/^\//);
    }
    const example = async (code: ErrorCode) => exampleProblem((await getPage(`${t.url}/errors/${code}`)).text)!;
    expect((await example('auth.scope_missing')).body).toMatchObject({ required_scope: expect.any(String), granted_scopes: expect.any(Array) });
    expect((await example('validation.failed')).body.errors).toEqual(expect.any(Object));
    expect((await example('pagination.limit_too_large')).body.max_limit).toBe(100);
    expect((await example('account.deactivated')).body.reason).toEqual(expect.any(String));
    expect((await example('rate_limit.exceeded')).head).toContainEqual(expect.stringMatching(/^Retry-After: \d+$/));
    expect((await example('idempotency_key.in_use')).head).toContain('Retry-After: 2');
    expect((await example('method.not_allowed')).head).toContainEqual(expect.stringMatching(/^Allow: /));
  });

  it('GraphQL and WebSocket codes say where they are answered and show the GraphQL error, with extensions.code and docUrl', async () => {
    for (const code of codes.filter((c) => c.startsWith('graphql.') || c.startsWith('websocket.'))) {
      const page = await getPage(`${t.url}/errors/${code}`);
      expect(page.text, code).toMatch(/GraphQL (WebSocket )?only/);
      expect(exampleProblem(page.text), code).toBeNull();
      const example = JSON.parse(preText(page.text, 'example-graphql')!);
      if (code === 'websocket.too_many_connections') {
        expect(example).toEqual({ code: 4429, reason: code });
        continue;
      }
      const errors = code === 'websocket.too_many_subscriptions' ? example.payload : example.errors;
      expect(errors[0].extensions, code).toMatchObject({ code, status: errorCatalog[code].status, docUrl: `/errors/${docSlug(code)}` });
    }
  });

  it('a code GraphQL mutations answer in userErrors shows the userErrors entry', async () => {
    const page = await getPage(`${t.url}/errors/precondition-required`);
    const example = JSON.parse(preText(page.text, 'example-user-errors')!);
    expect(example.userErrors).toEqual([{ field: ['ifMatch'], message: expect.stringContaining('ifMatch'), code: 'precondition.required' }]);
  });

  it('pages render the docs\' code spans as <code>, with no stray backtick', async () => {
    for (const code of codes) expect((await getPage(`${t.url}/errors/${code}`)).text, code).not.toContain('`');
  });

  it('the index lists every code grouped by its prefix, with its status, title and a link to its page', async () => {
    const index = await getPage(`${t.url}/errors`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/^text\/html/);
    const links = hrefs(index.text);
    for (const code of codes) {
      const { status, title } = errorCatalog[code];
      const href = `/errors/${docSlug(code)}`;
      expect(links, code).toContain(href);
      expect(index.text).toContain(`<tr><td><a href="${href}"><code>${code}</code></a></td><td>${status}</td><td>${escapeHtml(title)}</td></tr>`);
    }
    const prefixes = [...new Set(codes.map((code) => code.split('.')[0]))];
    for (const prefix of prefixes) expect(index.text).toContain(`<h2 id="${prefix}"><code>${prefix}</code></h2>`);
    // Each group's codes come under its heading.
    for (const code of codes) {
      const heading = index.text.indexOf(`<h2 id="${code.split('.')[0]}">`);
      const next = index.text.indexOf('<h2', heading + 1);
      const row = index.text.indexOf(`<code>${code}</code></a>`);
      expect(row > heading && (next === -1 || row < next), code).toBe(true);
    }
    expect((await getPage(`${t.url}/errors/`)).text).toBe(index.text);
  });

  it('every link of the index resolves to the page of its code', async () => {
    const index = await getPage(`${t.url}/errors`);
    const links = hrefs(index.text).filter((href) => href.startsWith('/errors/'));
    expect([...links].sort()).toEqual(codes.map((code) => `/errors/${docSlug(code)}`).sort());
    for (const link of links) expectCodePage(await getPage(resolve(link)), codeOfSlug.get(link.split('/').pop()!)!, link);
  });

  it('an unknown code answers 404 with an HTML page that leads back to /errors', async () => {
    for (const unknown of ['no.such_code', 'auth.nope', 'AUTH.MISSING_TOKEN', 'auth-missing_token', '__proto__', 'constructor', 'toString']) {
      const page = await getPage(`${t.url}/errors/${unknown}`);
      expect(page.status, unknown).toBe(404);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.text).toContain('<h1>Unknown error code</h1>');
      expect(hrefs(page.text)).toContain('/errors');
    }
    // Codes of the prefix asked for are offered.
    expect(hrefs((await getPage(`${t.url}/errors/auth.nope`)).text)).toContain('/errors/auth-missing-token');
    expect(hrefs((await getPage(`${t.url}/errors/rate-limit-exceded`)).text)).toContain('/errors/rate-limit-exceeded');
  });

  it('escapes what the client put in the path of an unknown code', async () => {
    const page = await getPage(`${t.url}/errors/${encodeURIComponent('<script>alert("x")</script>')}`);
    expect(page.status).toBe(404);
    expect(page.text).not.toContain('<script>');
    expect(page.text).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
  });

  it('pages are public: no key needed, and a bad key changes nothing', async () => {
    const anonymous = await getPage(`${t.url}/errors/auth-invalid-token`);
    const withBadKey = await getPage(`${t.url}/errors/auth-invalid-token`, { headers: { authorization: 'Bearer svc_not-a-key' } });
    expect(anonymous.status).toBe(200);
    expect(withBadKey.status).toBe(200);
    expect(withBadKey.text).toBe(anonymous.text);
  });

  it('pages are cached briefly and load nothing else (Cache-Control, CSP, nosniff), the 404 page too', async () => {
    for (const url of [`${t.url}/errors`, `${t.url}/errors/auth.missing_token`, `${t.url}/errors/no-such-code`]) {
      const page = await getPage(url);
      expect(page.headers.get('cache-control'), url).toBe('public, max-age=300');
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');
      expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
      expect(page.text).not.toMatch(/<script/i);
    }
  });

  it('answers HEAD like GET, without a body', async () => {
    const res = await fetch(`${t.url}/errors/auth-missing-token`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toBe('');
  });
});

/** A free port of 127.0.0.1, for an app whose PUBLIC_URL must name the port it listens on. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('with PUBLIC_URL set: absolute links on it', () => {
  let t: TestApp;
  let publicUrl: string;
  beforeAll(async () => {
    const port = await freePort();
    publicUrl = `http://127.0.0.1:${port}`;
    t = await startTestApp({ env: { PUBLIC_URL: publicUrl } });
    // The same app on the port PUBLIC_URL names, so that its absolute links resolve.
    await t.app.listen(port, '127.0.0.1');
  });
  afterAll(() => t?.close());

  it('problems carry type and doc_url absolute on PUBLIC_URL, and both open the page of their code', async () => {
    const problem = expectProblem(await t.client(null).get('/customers'), { status: 401, code: 'auth.missing_token', errorsUrl: `${publicUrl}/errors` });
    expect(problem.type).toBe(`${publicUrl}/errors/auth.missing_token`);
    expect(problem.doc_url).toBe(`${publicUrl}/errors/auth-missing-token`);
    for (const link of [problem.type, problem.doc_url]) expectCodePage(await getPage(link), 'auth.missing_token', link);
  });

  it('GraphQL errors carry extensions.docUrl absolute on PUBLIC_URL, which opens the page of their code', async () => {
    const res = await t.graphql(null)('{ me { apiVersion } }');
    const docUrl = res.body.errors![0].extensions!.docUrl;
    expect(docUrl).toBe(`${publicUrl}/errors/auth-missing-token`);
    expectCodePage(await getPage(docUrl), 'auth.missing_token');
  });

  it('the index links every code absolutely on PUBLIC_URL, and every link resolves', async () => {
    const index = await getPage(`${publicUrl}/errors`);
    const links = hrefs(index.text).filter((href) => href.startsWith(`${publicUrl}/errors/`));
    expect([...links].sort()).toEqual(codes.map((code) => `${publicUrl}/errors/${docSlug(code)}`).sort());
    for (const link of links) expectCodePage(await getPage(link), codeOfSlug.get(link.split('/').pop()!)!, link);
  });

  it('a code\'s page shows the absolute type and doc_url, and leads back to the index on PUBLIC_URL', async () => {
    const page = await getPage(`${publicUrl}/errors/resource.not_found`);
    expect(exampleProblem(page.text)!.body).toMatchObject({ type: `${publicUrl}/errors/resource.not_found`, doc_url: `${publicUrl}/errors/resource-not-found` });
    expect(hrefs(page.text)).toContain(`${publicUrl}/errors`);
  });
});

describe('with ERRORS_URL set explicitly: the links use it', () => {
  const errorsUrl = 'https://errors.example.com/fieldline';
  // PUBLIC_URL too: an explicit ERRORS_URL wins over the default built from it.
  const t = useTestApp({ env: { ERRORS_URL: `${errorsUrl}/`, PUBLIC_URL: 'https://api.example.com' } });

  it('problems and GraphQL errors link to ERRORS_URL (without its trailing slash)', async () => {
    const problem = expectProblem(await t.client(null).get('/customers'), { status: 401, code: 'auth.missing_token', errorsUrl });
    expect(problem.doc_url).toBe(`${errorsUrl}/auth-missing-token`);
    const res = await t.graphql(null)('{ me { apiVersion } }');
    expect(res.body.errors![0].extensions!.docUrl).toBe(`${errorsUrl}/auth-missing-token`);
  });

  it('the server still serves its pages, whose index links and examples use ERRORS_URL', async () => {
    const index = await getPage(`${t.url}/errors`);
    expect(index.status).toBe(200);
    const links = hrefs(index.text).filter((href) => href.startsWith(`${errorsUrl}/`));
    expect([...links].sort()).toEqual(codes.map((code) => `${errorsUrl}/${docSlug(code)}`).sort());
    const page = await getPage(`${t.url}/errors/auth-missing-token`);
    expectCodePage(page, 'auth.missing_token');
    expect(exampleProblem(page.text)!.body).toMatchObject({ type: `${errorsUrl}/auth.missing_token`, doc_url: `${errorsUrl}/auth-missing-token` });
  });
});
