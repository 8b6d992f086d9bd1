import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import { expectNoOutsideRequests, useBrowser } from '../helpers/browser.ts';

// GET / in a browser: a partner's first view of the server. It says what Fieldline is and leads to the API
// reference, GraphiQL, the dispatch board, the OpenAPI document, the error catalog and health; every link
// resolves on this server.

const BROWSER_TEST = { timeout: 90_000 };

describe('the landing page', () => {
  const t = useTestApp();
  const browser = useBrowser();

  it('says what the server is and links the API reference, GraphiQL, the dispatch board, the OpenAPI and AsyncAPI documents, the error catalog and health', BROWSER_TEST, async () => {
    const page = await browser.newPage();
    const response = await page.goto(`${t.url}/`);
    expect(response?.status()).toBe(200);
    expect(await page.title()).toContain('Fieldline');
    expect(await page.locator('main').innerText()).toMatch(/Fieldline is a multi-tenant field-service management API/);
    const links = await page.locator('main a[href]').evaluateAll((anchors) => anchors.map((a) => [a.textContent?.trim(), a.getAttribute('href')]));
    expect(links).toEqual(
      expect.arrayContaining([
        ['API reference', '/docs'],
        ['GraphiQL', '/graphql'],
        ['Dispatch board', '/board'],
        ['OpenAPI document', '/api/v2/openapi.json'],
        ['AsyncAPI document', '/api/v2/asyncapi.json'],
        ['Error catalog', '/errors'],
        ['Health', '/healthz'],
      ]),
    );
    expectNoOutsideRequests(browser);
  });

  it('links only pages of this server, and each one answers 200 when the browser follows it', BROWSER_TEST, async () => {
    const page = await browser.newPage();
    await page.goto(`${t.url}/`);
    const hrefs = [...new Set(await page.locator('a[href]').evaluateAll((anchors) => anchors.map((a) => (a as HTMLAnchorElement).href)))];
    expect(hrefs.length).toBeGreaterThanOrEqual(5);
    for (const href of hrefs) expect(new URL(href).origin, href).toBe(t.url);
    // Only the documents are followed: their scripts, styles and workers (Redoc, GraphiQL's Monaco) are the other
    // tests' subject, and left running they keep a busy renderer from closing on a loaded machine.
    await page.route(`${t.url}/**`, (route) => (route.request().isNavigationRequest() ? route.continue() : route.abort()));
    const statuses: Record<string, number | undefined> = {};
    for (const href of hrefs) {
      // A navigation, as when the link is clicked (GraphiQL answers /graphql with its page); the answer is enough.
      const response = await page.goto(href, { waitUntil: 'commit' });
      statuses[new URL(href).pathname] = response?.status();
    }
    expect(statuses).toEqual(Object.fromEntries(Object.keys(statuses).map((pathname) => [pathname, 200])));
    expectNoOutsideRequests(browser);
  });
});
