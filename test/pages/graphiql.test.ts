import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { useTenant, useTestApp } from '../helpers/app.ts';
import { expectNoOutsideRequests, useBrowser } from '../helpers/browser.ts';

// GraphiQL at /graphql in a browser, offline: the page, its script, stylesheet and Monaco's three workers all
// come from this server (no unpkg.com, no GitHub favicon). A person pastes their API key into the headers
// editor, runs a query and reads the answer in the result pane.

const BROWSER_TEST = { timeout: 90_000 };
const require = createRequire(import.meta.url);
const version = (JSON.parse(readFileSync(require.resolve('@graphql-yoga/graphiql/package.json'), 'utf8')) as { version: string }).version;
const ASSETS = `/assets/graphiql/${version}`;

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
    await page.getByRole('region', { name: 'Operation Editor' }).locator('.monaco-editor').waitFor();
    await Promise.all(workers);
    expect(loaded).toEqual(expect.arrayContaining([`${ASSETS}/graphiql.css`, `${ASSETS}/yoga-graphiql.umd.js`]));
    // The default query, with how to pass the key, is in the editor.
    const query = await page.getByRole('region', { name: 'Operation Editor' }).locator('.view-lines').innerText();
    expect(query.replace(/\u00a0/g, ' ')).toContain('{"Authorization": "Bearer svc_..."}');
    expect(browser.pageErrors).toEqual([]);
    expectNoOutsideRequests(browser);
  });

  it('runs a query with the API key a person pastes into the headers editor, and shows the answer in the result pane', BROWSER_TEST, async () => {
    const page = await browser.newPage();
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
    await page.goto(`${t.url}/graphql`);
    await page.getByRole('region', { name: 'Operation Editor' }).locator('.monaco-editor').waitFor();

    // Headers tab, select what is there, paste {"Authorization": "Bearer <key>"}.
    await page.getByRole('button', { name: 'Headers', exact: true }).click();
    const headers = page.getByRole('region', { name: 'Headers' }).locator('.monaco-editor').filter({ visible: true });
    await headers.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.evaluate((text) => navigator.clipboard.writeText(text), JSON.stringify({ Authorization: `Bearer ${tenant.token}` }));
    await page.keyboard.press('ControlOrMeta+V');

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
    expect(browser.pageErrors).toEqual([]);
    expectNoOutsideRequests(browser);
  });
});
