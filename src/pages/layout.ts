// The HTML shell of the server's own pages (landing page, API reference, error pages): one stylesheet, no
// outside requests, every interpolated value escaped. Pages are built with the `html` tag below, whose
// placeholders are escaped unless they are already Html (a fragment built the same way).

import type { Response } from 'express';

export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const entities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => entities[char]);
}

function render(value: unknown): string {
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** A template literal whose placeholders are escaped (arrays are joined; Html, null, undefined and false as such). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new Html(out);
}

/** A value as a JavaScript literal, safe inside a <script> element (no `</script>` can close it early). */
export function scriptLiteral(value: unknown): Html {
  return new Html(JSON.stringify(value).replace(/</g, '\\u003c'));
}

const style = `
:root { color-scheme: light dark; --fg: #1b1f24; --muted: #57606a; --bg: #fff; --line: #d0d7de; --accent: #0b5cad; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #9da7b3; --bg: #0d1117; --line: #30363d; --accent: #58a6ff; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
header, main, footer { max-width: 56rem; margin: 0 auto; padding: 0 1.25rem; }
header { padding-top: 1.5rem; border-bottom: 1px solid var(--line); }
header a.brand { font-weight: 700; font-size: 1.15rem; color: var(--fg); text-decoration: none; }
header nav { display: inline-flex; gap: 1rem; margin-left: 1.5rem; flex-wrap: wrap; }
main { padding-top: 1rem; padding-bottom: 2rem; }
footer { color: var(--muted); font-size: .875rem; border-top: 1px solid var(--line); padding-top: .75rem; padding-bottom: 2rem; }
a { color: var(--accent); }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9em; }
pre { padding: .75rem 1rem; border: 1px solid var(--line); border-radius: 6px; overflow-x: auto; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
.muted { color: var(--muted); }
`;

/**
 * The site's icon, inline (a data: URL), so that no page makes a request for it (a browser asks for /favicon.ico
 * when a page names none).
 */
export const FAVICON =
  'data:image/svg+xml,' +
  encodeURIComponent(
    "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'><rect width='16' height='16' rx='3' fill='#0b5cad'/><path d='M5 3h7v2H7v2h4v2H7v4H5z' fill='#fff'/></svg>",
  );

/** A whole page: the shell with the site header and footer around `body` (`head`: more of the head, e.g. a style). */
export function page(options: { title: string; body: Html; description?: string; head?: Html }): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · Fieldline</title>
${options.description ? html`<meta name="description" content="${options.description}">` : ''}
<link rel="icon" href="${FAVICON}">
<style>${new Html(style)}</style>
${options.head}
</head>
<body>
<header><a class="brand" href="/">Fieldline</a>
<nav><a href="/docs">API reference</a><a href="/graphql">GraphiQL</a><a href="/errors">Errors</a><a href="/api/v2/openapi.json">OpenAPI</a></nav>
<h1>${options.title}</h1>
</header>
<main>
${options.body}
</main>
<footer>Fieldline field-service API · <a href="/healthz">health</a></footer>
</body>
</html>
`.value;
}

/** The Content-Security-Policy of a page of the shell without script: it loads nothing (inline style, data: icon). */
export const SHELL_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Sends one of our HTML pages with its caching and its Content-Security-Policy, never sniffed as anything else. */
export function sendPage(res: Response, body: string, options: { cacheControl: string; csp: string; status?: number }): void {
  res.status(options.status ?? 200);
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', options.cacheControl);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', options.csp);
  res.send(body);
}

/** The settings the pages read (the app's config: src/config.ts). */
export interface PagesConfig {
  /** The server's public base URL; unset, links are relative. */
  PUBLIC_URL?: string;
  /** Base of the error pages' links. */
  ERRORS_URL: string;
}
