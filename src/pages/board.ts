import { assets } from './assets.ts';
import { Html, html, page } from './layout.ts';

// GET /board: the live dispatch board. A dispatcher enters an API key (kept in the tab's sessionStorage, never
// in the URL), picks a day and sees one column per technician with the day's jobs as cards, kept live by the
// `jobEvents` subscription over graphql-ws. Dragging a card (or its Move… dialog, for the keyboard) calls
// updateJob with the card's etag; a refusal (someone else moved the job first) shows its userErrors message.
// The page itself is static (rendered once, no key read); everything else is done by the board's script
// (src/pages/board/, bundled when the server starts) and the graphql-ws browser client, both served by this
// server (assets.ts). The Content-Security-Policy allows scripts from this server only (no inline script) and
// requests to this server only (fetch and WebSocket).

const style = `
[hidden] { display: none !important; }
header, main, footer { max-width: none; }
.keyform { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; }
.keyform input { min-width: 22rem; font: inherit; padding: .3rem .5rem; }
.toolbar { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin-bottom: .75rem; }
.toolbar input, button, select, dialog input { font: inherit; }
button { padding: .25rem .6rem; border: 1px solid var(--line); border-radius: 6px; background: transparent; color: var(--fg); cursor: pointer; }
button:hover { border-color: var(--accent); }
.live { margin-left: auto; font-size: .875rem; padding: .15rem .5rem; border-radius: 999px; border: 1px solid var(--line); }
.live[data-state="live"] { border-color: #1a7f37; color: #1a7f37; }
.live[data-state="unavailable"], .live[data-state="reconnecting"] { border-color: #bf8700; color: #bf8700; }
.banner { border: 1px solid #cf222e; border-radius: 6px; padding: .5rem .75rem; margin-bottom: .75rem; display: flex; gap: 1rem; align-items: start; }
.banner p { margin: 0; flex: 1; }
.board-wrap { overflow-x: auto; }
table.board { table-layout: fixed; border-collapse: separate; border-spacing: 0; }
table.board th.hour-col { width: 4.5rem; }
table.board th, table.board td { border-bottom: 1px solid var(--line); border-right: 1px solid var(--line); }
table.board thead th { position: sticky; top: 0; background: var(--bg); z-index: 1; }
table.board td { height: 3.25rem; padding: .25rem; }
table.board .drop-target { outline: 2px dashed var(--accent); outline-offset: -3px; }
.card { border: 1px solid var(--line); border-left: 4px solid var(--accent); border-radius: 6px; padding: .3rem .45rem; margin-bottom: .25rem;
  font-size: .875rem; line-height: 1.35; background: var(--bg); cursor: grab; }
.card:focus { outline: 2px solid var(--accent); }
.card h3 { font-size: .9rem; margin: 0; }
.card p { margin: 0; overflow: hidden; text-overflow: ellipsis; }
.card .desc { color: var(--muted); white-space: nowrap; }
.card .move { font-size: .75rem; padding: 0 .4rem; margin-top: .15rem; }
.card[data-saving] { opacity: .55; }
.card .card-error { color: #cf222e; }
dialog { border: 1px solid var(--line); border-radius: 8px; color: var(--fg); background: var(--bg); }
dialog form { display: grid; gap: .5rem; min-width: 18rem; }
`;

export function boardPage(): string {
  return page({
    title: 'Dispatch board',
    description: "Fieldline dispatch board: the day's jobs by technician, live.",
    head: html`<style>${new Html(style)}</style>
<script src="${assets.graphqlWs.script.url}" defer></script>
<script src="${assets.board.script.url}" defer></script>`,
    body: html`
<noscript><p>The dispatch board needs JavaScript. The same data is available from <code>dispatchBoard</code> in
<a href="/graphql">GraphiQL</a> and from <code>GET /api/v2/jobs</code>.</p></noscript>

<section id="key-section" aria-labelledby="key-heading">
<h2 id="key-heading">Your API key</h2>
<form id="key-form" class="keyform" autocomplete="off">
<label for="key-input">API key</label>
<input id="key-input" type="password" spellcheck="false" autocomplete="off" required placeholder="svc_…">
<button type="submit">Open the board</button>
</form>
<p class="muted">A key of your account with <code>jobs:read</code> and <code>jobs:write</code> (and <code>customers:read</code>
for customer names). It stays in this browser tab only (sessionStorage): it is never put in the address and is sent to
nothing but this server's <code>/graphql</code>.</p>
<p id="key-error" role="alert" hidden></p>
</section>

<section id="board-section" aria-label="Board" hidden>
<div class="toolbar">
<label for="day-input">Day</label>
<input id="day-input" type="date" required>
<button type="button" id="previous-day" aria-label="Previous day">◀</button>
<button type="button" id="today">Today</button>
<button type="button" id="next-day" aria-label="Next day">▶</button>
<button type="button" id="refresh">Refresh</button>
<span id="live" class="live" role="status" data-state="connecting">Connecting…</span>
<button type="button" id="forget-key">Forget key</button>
</div>
<div id="banner" class="banner" role="alert" hidden><p id="banner-text"></p><button type="button" id="banner-close">Dismiss</button></div>
<p id="summary" class="muted" aria-live="polite"></p>
<div class="board-wrap"><table id="board" class="board" aria-label="Jobs of the day by technician and hour"></table></div>
<p class="muted">Drag a card onto another technician's column to reassign it, or onto another hour to reschedule it
(the length of the visit is kept). With the keyboard: focus a card and choose <strong>Move…</strong>.</p>
</section>

<dialog id="move-dialog" aria-labelledby="move-heading">
<form id="move-form">
<h2 id="move-heading">Move job</h2>
<label for="move-user">Technician</label>
<select id="move-user"></select>
<label for="move-time">Start</label>
<input id="move-time" type="time" required>
<div class="toolbar"><button type="submit">Move</button><button type="button" id="move-cancel">Cancel</button></div>
</form>
</dialog>
`,
  });
}

/**
 * The board's Content-Security-Policy: its two scripts from this server (no inline script), its inline style,
 * and requests to this server only: 'self' in connect-src also covers the ws:/wss: URL of the same host, where
 * the live updates come from.
 */
export const BOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'unsafe-inline'",
  'img-src data:',
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
