import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';
import type { Page } from 'playwright-core';
import { expectNoOutsideRequests, useBrowser } from '../helpers/browser.ts';

// GET /docs in a browser: the REST API reference, rendered by Redoc (served by this server) from the live
// OpenAPI document, with no request to another host (no Google Fonts, no CDN, not even Redoc's own logo).

const BROWSER_TEST = { timeout: 90_000 };
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

describe('the API reference at /docs', () => {
  const t = useTestApp();
  const browser = useBrowser();
  // Redoc renders the whole document in the browser (seconds of the browser's CPU): the page is loaded once, by
  // whichever test comes first, and the tests below read and click the same page.
  let loaded: Promise<{ page: Page; status: number | undefined; specStatus: number }> | undefined;
  const docsPage = () =>
    (loaded ??= (async () => {
      const page = await browser.newPage({ keep: true });
      const specRequested = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/v2/openapi.json');
      const response = await page.goto(`${t.url}/docs`);
      return { page, status: response?.status(), specStatus: (await specRequested).status() };
    })());

  it('renders the live OpenAPI document with Redoc, listing every operation and webhook in the sidebar, loading nothing from another host', BROWSER_TEST, async () => {
    const document = (await (await fetch(`${t.url}/api/v2/openapi.json`)).json()) as { info: { title: string }; paths: Record<string, Record<string, unknown>>; webhooks: Record<string, Record<string, unknown>> };
    // The operations of the paths, and the deliveries of the webhooks (one per topic).
    const operations = [...Object.values(document.paths), ...Object.values(document.webhooks)].flatMap((item) => Object.keys(item).filter((key) => METHODS.includes(key)));
    expect(operations.length).toBeGreaterThan(10);

    const { page, status, specStatus } = await docsPage();
    expect(status).toBe(200);
    expect(specStatus).toBe(200);
    await page.getByRole('heading', { level: 1, name: new RegExp(`^${document.info.title}`) }).waitFor();
    // Redoc's sidebar: one entry per tag, one per operation under it.
    const sidebar = page.locator('.menu-content');
    expect(await sidebar.locator('li[data-item-id*="/operation/"]').count()).toBe(operations.length);
    expect(browser.pageErrors).toEqual([]);
    expectNoOutsideRequests(browser);
  });

  it('is where /api/v2/docs leads (301), and the document it renders is served compressed and kept', async () => {
    const redirect = await fetch(`${t.url}/api/v2/docs`, { redirect: 'manual' });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe('/docs');
    const plain = await fetch(`${t.url}/api/v2/openapi.json`, { headers: { 'accept-encoding': 'identity' } });
    const gzipped = await fetch(`${t.url}/api/v2/openapi.json`, { headers: { 'accept-encoding': 'gzip' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    // fetch decodes the body; the length on the wire is the header's.
    expect(gzipped.headers.get('content-encoding')).toBe('gzip');
    expect(Number(gzipped.headers.get('content-length'))).toBeLessThan(Number(plain.headers.get('content-length')) / 4);
    expect(await gzipped.json()).toEqual(await plain.json());
  });

  it('leads a reader from the sidebar to an operation: Customers, then "List customers"', BROWSER_TEST, async () => {
    const { page } = await docsPage();
    const sidebar = page.locator('.menu-content');
    await sidebar.getByText('Customers', { exact: true }).click();
    const entry = sidebar.getByText('List customers', { exact: true });
    await entry.click();
    await page.waitForURL(/#tag\/Customers\/operation\/listCustomers$/);
    const heading = page.getByRole('heading', { level: 2, name: 'List customers' });
    await heading.waitFor();
    // The section is scrolled to: its heading is on screen.
    const box = await heading.boundingBox();
    const viewport = page.viewportSize();
    expect(box && viewport && box.y >= 0 && box.y < viewport.height).toBe(true);
    expect(await page.locator('[id="tag/Customers/operation/listCustomers"]').innerText()).toContain('/customers');
    expectNoOutsideRequests(browser);
  });
});
