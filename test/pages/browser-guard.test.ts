import { describe, expect, it } from 'vitest';
import { useBrowser } from '../helpers/browser.ts';

// The guard of every browser test (test/helpers/browser.ts): a request to another host is refused before it
// leaves the browser, and recorded, so that "no request to another host" in the other tests proves something.

describe('the browser of the browser tests', () => {
  const browser = useBrowser();

  it('refuses and records every request to a host other than this machine: images, stylesheets, scripts, fetch and WebSockets', { timeout: 90_000 }, async () => {
    const page = await browser.newPage();
    await page.setContent(`<!doctype html>
<link rel="stylesheet" href="https://unpkg.com/graphiql/graphiql.css">
<img src="https://raw.githubusercontent.com/graphql-hive/graphql-yoga/main/logo.png">
<script src="https://fonts.googleapis.com/css?family=Montserrat"></script>`);
    const fetched = await page.evaluate(() => fetch('https://cdn.redoc.ly/redoc/logo-mini.svg', { mode: 'no-cors' }).then(() => 'loaded', () => 'refused'));
    expect(fetched).toBe('refused');
    await page.evaluate(() => new Promise((resolve) => Object.assign(new WebSocket('wss://example.com/socket'), { onclose: resolve, onerror: resolve })));
    // The image is refused in its own time: its error event says the browser is done with it.
    await page.locator('img').evaluate((img: HTMLImageElement) => img.complete || new Promise((resolve) => Object.assign(img, { onload: resolve, onerror: resolve })));
    const recorded: string[] = [];
    await expect.poll(() => recorded.push(...browser.takeOutsideRequests()) && recorded.sort(), { timeout: 10_000 }).toEqual(
      [
        'GET https://unpkg.com/graphiql/graphiql.css',
        'GET https://raw.githubusercontent.com/graphql-hive/graphql-yoga/main/logo.png',
        'GET https://fonts.googleapis.com/css?family=Montserrat',
        'GET https://cdn.redoc.ly/redoc/logo-mini.svg',
        'WEBSOCKET wss://example.com/socket',
      ].sort(),
    );
  });
});
