import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { useTenant, useTestApp } from '../helpers/app.ts';
import { expectNoOutsideRequests, useBrowser } from '../helpers/browser.ts';

// GraphiQL at /graphql in a browser, offline: the page, its script, stylesheet and Monaco's three workers all
// come from this server (no unpkg.com, no GitHub favicon). A person gives their API key in the page's form first;
// GraphiQL then opens with it in its headers, loads the schema with it, runs a query and shows the answer.

const BROWSER_TEST = { timeout: 90_000 };
const require = createRequire(import.meta.url);
const version = (JSON.parse(readFileSync(require.resolve('@graphql-yoga/graphiql/package.json'), 'utf8')) as { version: string }).version;
const ASSETS = `/assets/graphiql/${version}`;

/** Gives the key in the page's form, as a person does; GraphiQL opens with it. */
async function openWithKey(page: import('playwright-core').Page, token: string): Promise<void> {
  await page.getByLabel('API key').fill(token);
  await page.getByRole('button', { name: 'Open GraphiQL' }).click();
}

describe('GraphiQL at /graphql', () => {
  const t = useTestApp();
  const { tenant } = useTenant(t, { name: 'Northwind Field Services' });
  const browser = useBrowser();

  it("loads offline, with its script, stylesheet and Monaco's workers from this server's versioned assets", BROWSER_TEST, async () => {
    const page = await browser.newPage();
    const loaded: string[] = [];
    page.on('response', (response) => {
      if (response.ok()) loaded.push(new URL(response.url()).pathname);
    });
    const workers = ['editor', 'json', 'graphql'].map((name) =>
      page.waitForResponse((response) => new URL(response.url()).pathname === `${ASSETS}/monacoeditorwork/${name}.worker.bundle.js` && response.ok()),
    );
    const response = await page.goto(`${t.url}/graphql`);
    expect(response?.status()).toBe(200);
    expect(await page.title()).toBe('Fieldline GraphQL');
    await openWithKey(page, tenant.token);
    await page.getByRole('region', { name: 'Operation Editor' }).locator('.monaco-editor').waitFor();
    await Promise.all(workers);
    expect(loaded).toEqual(expect.arrayContaining([`${ASSETS}/graphiql.css`, `${ASSETS}/yoga-graphiql.umd.js`]));
    // The default query, with how to pass the key, is in the editor.
    const query = await page.getByRole('region', { name: 'Operation Editor' }).locator('.view-lines').innerText();
    expect(query.replace(/\u00a0/g, ' ')).toContain('{"Authorization": "Bearer svc_..."}');
    expect(browser.pageErrors).toEqual([]);
    expectNoOutsideRequests(browser);
  });

  it('asks for the API key first, loads the schema with it (no 401; the docs list the root types), and runs the default query with it', BROWSER_TEST, async () => {
    const page = await browser.newPage();
    const posts: { status: number; authorization: string | undefined; introspection: boolean }[] = [];
    page.on('response', async (response) => {
      const request = response.request();
      if (new URL(request.url()).pathname !== '/graphql' || request.method() !== 'POST') return;
      posts.push({ status: response.status(), authorization: await request.headerValue('authorization') ?? undefined, introspection: (request.postData() ?? '').includes('__schema') });
    });
    await page.goto(`${t.url}/graphql`);
    // Nothing is sent before the key is given: no request that could only answer 401.
    await page.getByLabel('API key').waitFor();
    expect(await page.getByRole('region', { name: 'Operation Editor' }).count()).toBe(0);
    const introspected = page.waitForResponse((response) => new URL(response.url()).pathname === '/graphql' && (response.request().postData() ?? '').includes('__schema'));
    await openWithKey(page, tenant.token);
    expect((await introspected).status()).toBe(200);
    // The schema is loaded: the documentation explorer lists the root types.
    await page.getByRole('button', { name: /Show Documentation Explorer/ }).click();
    await page.getByText('Root Types').waitFor();
    expect(posts.length).toBeGreaterThan(0);
    for (const post of posts) expect(post).toMatchObject({ status: 200, authorization: `Bearer ${tenant.token}` });

    // The default query asks `me`: run it with the play button.
    const sent = page.waitForRequest((request) => new URL(request.url()).pathname === '/graphql' && request.method() === 'POST' && /\bme\b/.test(request.postData() ?? ''));
    await page.getByRole('button', { name: /^Execute query/ }).click();
    const request = await sent;
    expect(await request.headerValue('authorization')).toBe(`Bearer ${tenant.token}`);
    expect((await request.response())?.status()).toBe(200);

    const result = page.getByRole('region', { name: 'Result Window' });
    await result.getByText('"Northwind Field Services"').waitFor();
    const shown = (await result.innerText()).replace(/\u00a0/g, ' ');
    expect(shown).toContain('"customers:read"');
    expect(shown).not.toContain('"errors"');

    // The key stays in the tab: GraphiQL does not keep the headers in the browser's storage. GraphiQL saves its
    // tabs (query, and headers when it keeps them) a moment after an edit: a note added to the query is seen in
    // storage first, so the headers of the same moment would be there too.
    const queryEditor = page.getByRole('region', { name: 'Operation Editor' }).locator('.monaco-editor');
    await queryEditor.click();
    await page.keyboard.press('ControlOrMeta+End');
    await page.keyboard.type('# ran it');
    await page.waitForFunction(() => localStorage.getItem('graphiql:tabState')?.includes('# ran it'));
    expect(await page.evaluate(() => JSON.stringify({ ...localStorage }))).not.toContain(tenant.token);
    expect(page.url()).not.toContain(tenant.token);
    // A reload of the tab opens GraphiQL with the key at once; another tab asks again.
    await page.reload();
    await page.getByRole('region', { name: 'Operation Editor' }).locator('.monaco-editor').waitFor();
    const other = await browser.newPage();
    await other.goto(`${t.url}/graphql`);
    await other.getByLabel('API key').waitFor();
    expect(browser.pageErrors).toEqual([]);
    expectNoOutsideRequests(browser);
  });
});
