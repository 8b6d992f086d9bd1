import { createHash } from 'node:crypto';
import { assets } from './assets.ts';
import { FAVICON, Html, html, scriptLiteral } from './layout.ts';

// GET /docs: the REST API reference, rendered in the browser by Redoc's standalone bundle (served by this server,
// see assets.ts) from the live OpenAPI document at /api/v2/openapi.json. Nothing is loaded from another host:
// Redoc's usual page loads its fonts from Google Fonts; this one uses the system's fonts instead.

export const OPENAPI_PATH = '/api/v2/openapi.json';

const fonts = {
  text: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
  code: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
};

/** Redoc's options (https://redocly.com/docs/redoc/config): system fonts, and the page's fixed bar kept in view. */
const redocOptions = {
  scrollYOffset: 'nav.bar',
  theme: {
    typography: {
      fontFamily: fonts.text,
      headings: { fontFamily: fonts.text },
      code: { fontFamily: fonts.code },
    },
  },
};

const style = `
body { margin: 0; }
nav.bar { position: fixed; top: 0; left: 0; right: 0; z-index: 10; height: 44px; display: flex; align-items: center; gap: 1.25rem;
  padding: 0 1rem; background: #0d1117; color: #e6edf3; font: 14px/1 ${fonts.text}; }
nav.bar a { color: inherit; text-decoration: none; }
nav.bar a:hover { text-decoration: underline; }
nav.bar .brand { font-weight: 700; }
nav.bar .here { color: #9da7b3; }
#redoc { padding-top: 44px; }
/* The footer's logo, left without a src (see the script below). */
#redoc img:not([src]) { display: none; }
noscript p { font: 16px/1.5 ${fonts.text}; padding: 1rem; }
`;

/**
 * The page's one inline script. Redoc's sidebar footer ("API docs by Redocly") shows Redocly's logo from
 * cdn.redoc.ly, unconditionally: the only request of the bundle to another host. An image is not given a src
 * on another host (the footer's text link stays, without the logo), so the page asks nothing of another host;
 * the Content-Security-Policy below would refuse it anyway. Then Redoc renders the live document.
 */
const init = `(function () {
  function outside(value) {
    try {
      var url = new URL(String(value), location.href);
      return /^https?:$/.test(url.protocol) && url.origin !== location.origin;
    } catch (error) {
      return false;
    }
  }
  var image = HTMLImageElement.prototype;
  var src = Object.getOwnPropertyDescriptor(image, 'src');
  Object.defineProperty(image, 'src', {
    configurable: true,
    enumerable: src.enumerable,
    get: src.get,
    set: function (value) { if (!outside(value)) src.set.call(this, value); },
  });
  var setAttribute = Element.prototype.setAttribute;
  image.setAttribute = function (name, value) {
    if (String(name).toLowerCase() === 'src' && outside(value)) return;
    return setAttribute.call(this, name, value);
  };
})();
Redoc.init(${scriptLiteral(OPENAPI_PATH)}, ${scriptLiteral(redocOptions)}, document.getElementById('redoc'));`;

/**
 * The page's Content-Security-Policy: scripts from this server only (and the one inline call above, by its hash),
 * Redoc's search worker from a blob:, styles inline (styled-components), the document fetched from this server.
 * It also keeps Redoc's sidebar footer from loading its logo from cdn.redoc.ly: that image is the one thing of
 * the bundle that names another host, and the browser never requests it.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  `script-src 'self' 'sha256-${createHash('sha256').update(init).digest('base64')}'`,
  "worker-src 'self' blob:",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function docsPage(): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference · Fieldline</title>
<meta name="description" content="Reference of the Fieldline REST API v2 (OpenAPI 3.1).">
<link rel="icon" href="${FAVICON}">
<style>${new Html(style)}</style>
</head>
<body>
<nav class="bar"><a class="brand" href="/">Fieldline</a><span class="here">API reference</span><a href="/graphql">GraphiQL</a><a href="${OPENAPI_PATH}">OpenAPI document</a><a href="/errors">Errors</a></nav>
<noscript><p>The API reference is rendered with JavaScript. The OpenAPI document it shows is at <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a>.</p></noscript>
<div id="redoc"></div>
<script src="${assets.redoc.script.url}"></script>
<script>${new Html(init)}</script>
</body>
</html>
`.value;
}
