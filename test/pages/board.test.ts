import type { Page, WebSocketRoute } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { highRateLimits, useTenant, useTestApp } from '../helpers/app.ts';
import { expectNoOutsideRequests, useBrowser } from '../helpers/browser.ts';
import { createJob } from '../helpers/factories/jobs.ts';
import { patch, readRecord, type Created } from '../helpers/factories/records.ts';
import { createPlace, type Place } from '../helpers/factories/sites.ts';

// GET /board in a real browser (Debian's Chromium through playwright-core), black-box: jobs and technicians are
// made over REST and the admin service, the dispatcher's view is read from the page, and what the page writes is
// read back over REST. Each test works on a day of its own (the board shows one day), in the browser's time zone:
// the instants of a local day are computed by the browser itself.

const BROWSER_TEST = { timeout: 90_000 };
/** The requirement: a change made elsewhere reaches the board within a second (after the PATCH has returned). */
const LIVE_DEADLINE_MS = 1000;

describe('the dispatch board at /board', () => {
  const t = useTestApp({ rateLimits: highRateLimits });
  const { tenant, api } = useTenant(t, { name: 'Dispatch Co' });
  const browser = useBrowser();
  let place: Place;
  const techs: Record<'ana' | 'ben' | 'cy', { id: number; name: string }> = {} as never;

  beforeAll(async () => {
    place = await createPlace(api, { organization: 'Acme Heating' });
    const names = { ana: 'Ana Alvarez', ben: 'Ben Brooks', cy: 'Cy Carter' } as const;
    for (const [handle, name] of Object.entries(names) as [keyof typeof names, string][]) {
      const user = await t.app.domain.admin.createUser({ accountId: tenant.accountId, name, email: `${handle}@dispatch.test`, role: 'technician' });
      techs[handle] = { id: user.id, name };
    }
  });

  /** The instant of hh:mm on a day (YYYY-MM-DD) in the browser's time zone, as ISO 8601. */
  function localInstant(page: Page, day: string, hour: number, minute = 0): Promise<string> {
    return page.evaluate(
      ([d, h, m]) => {
        const [y, mo, da] = String(d).split('-').map(Number);
        return new Date(y, mo - 1, da, Number(h), Number(m)).toISOString();
      },
      [day, hour, minute] as const,
    );
  }

  /** A job at the site of `place`, scheduled [start, start + hours), assigned to these users. */
  function job(fields: { title: string; start: string; hours?: number; assignees?: number[]; description?: string }): Promise<Created> {
    const end = new Date(Date.parse(fields.start) + (fields.hours ?? 1) * 3600_000).toISOString();
    return createJob(api, {
      customer_id: place.customer.id,
      site_id: place.site.id,
      title: fields.title,
      work_description: fields.description,
      scheduled_start: fields.start,
      scheduled_end: end,
      assignments: (fields.assignees ?? []).map((user_id) => ({ user_id })),
    });
  }

  /** A new tab on /board, its Content-Security-Policy reports collected. */
  async function openPage(): Promise<{ page: Page; cspViolations: string[] }> {
    const page = await browser.newPage();
    // Room for the whole day: a drag whose target is below the fold would need the page to scroll mid-drag.
    await page.setViewportSize({ width: 1600, height: 1400 });
    const cspViolations: string[] = [];
    page.on('console', (message) => {
      if (/Content.Security.Policy/i.test(message.text())) cspViolations.push(message.text());
    });
    return { page, cspViolations };
  }

  /** Opens the board of a day, enters the key as a dispatcher would, and waits for the day's board. */
  async function openBoard(page: Page, day: string, key = tenant.token): Promise<void> {
    const response = await page.goto(`${t.url}/board?day=${day}`);
    expect(response?.status()).toBe(200);
    await page.getByRole('textbox', { name: 'API key', exact: true }).fill(key);
    await page.getByRole('button', { name: 'Open the board' }).click();
    await loaded(page, day);
  }

  /** Waits for the board of a day to be read; fails with the page's message when it says why it could not. */
  async function loaded(page: Page, day: string): Promise<void> {
    const board = page.locator(`#board-section[data-loaded="${day}"]`);
    const banner = page.locator('#banner');
    await board.or(banner).first().waitFor();
    if (!(await board.isVisible())) throw new Error(`the board of ${day} was not shown: ${await banner.innerText()}`);
  }

  /** The card of a job in a technician's column ('' for Unassigned), optionally at an hour row. */
  function card(page: Page, jobId: string, userId: number | '', hour?: number) {
    const cell = hour === undefined ? `td[data-user-id="${userId}"]` : `td[data-user-id="${userId}"][data-hour="${hour}"]`;
    return page.locator(`#board ${cell} .card[data-job-id="${jobId}"]`);
  }

  it("shows the day's jobs in one column per technician (and Unassigned), by hour, with number, title, customer, time and description", BROWSER_TEST, async () => {
    const { page, cspViolations } = await openPage();
    const day = '2031-03-03';
    await page.goto(`${t.url}/board`);
    const [nine, ten, oneThirty, otherDay] = await Promise.all([
      localInstant(page, day, 9),
      localInstant(page, day, 10, 15),
      localInstant(page, day, 13, 30),
      localInstant(page, '2031-03-04', 8),
    ]);
    const a = await job({ title: 'Boiler service', start: nine, hours: 2, assignees: [techs.ana.id], description: 'Bring the pressure gauge' });
    const b = await job({ title: 'Leak <script>alert(1)</script>', start: oneThirty, assignees: [techs.ben.id] });
    const c = await job({ title: 'Quote visit', start: ten });
    const both = await job({ title: 'Two-person install', start: ten, hours: 3, assignees: [techs.ana.id, techs.ben.id] });
    const tomorrow = await job({ title: 'Tomorrow only', start: otherDay, assignees: [techs.cy.id] });

    await openBoard(page, day);
    // The key is in this tab's sessionStorage only: not in the address, not in localStorage, not in the form.
    expect(page.url()).toBe(`${t.url}/board?day=${day}`);
    expect(page.url()).not.toContain(tenant.token);
    expect(await page.evaluate(() => sessionStorage.getItem('fieldline.board.key'))).toBe(tenant.token);
    expect(await page.evaluate(() => JSON.stringify({ ...localStorage }))).not.toContain(tenant.token);
    expect(await page.locator('#key-input').inputValue()).toBe('');

    const headers = await page.locator('#board thead th').allInnerTexts();
    expect(headers).toEqual(['Time', 'Unassigned (1)', 'Ana Alvarez (2)', 'Ben Brooks (2)']);

    await expect.poll(() => card(page, a.id, techs.ana.id, 9).count()).toBe(1);
    const shown = await card(page, a.id, techs.ana.id, 9).innerText();
    expect(shown).toContain(`#${a.record.number} · Boiler service`);
    expect(shown).toContain('09:00–11:00');
    expect(shown).toContain('Acme Heating');
    expect(shown).toContain('Bring the pressure gauge');
    // Text from the API is text: the title's markup is shown, not run.
    expect(await card(page, b.id, techs.ben.id, 13).locator('h3').innerText()).toBe(`#${b.record.number} · Leak <script>alert(1)</script>`);
    expect(await card(page, b.id, techs.ben.id, 13).innerText()).toContain('13:30–14:30');
    expect(await card(page, c.id, '', 10).count()).toBe(1);
    // A job with two technicians is in both columns.
    expect(await card(page, both.id, techs.ana.id, 10).count()).toBe(1);
    expect(await card(page, both.id, techs.ben.id, 10).count()).toBe(1);
    expect(await page.locator(`#board .card[data-job-id="${tomorrow.id}"]`).count()).toBe(0);
    expect(await page.locator('#board .card').count()).toBe(5);

    // The next day: only its job, in its technician's column; the address names the day.
    await page.getByRole('button', { name: 'Next day' }).click();
    await loaded(page, '2031-03-04');
    expect(page.url()).toBe(`${t.url}/board?day=2031-03-04`);
    expect(await card(page, tomorrow.id, techs.cy.id, 8).count()).toBe(1);
    expect(await page.locator(`#board .card[data-job-id="${a.id}"]`).count()).toBe(0);
    // Picking a day in the day field.
    await page.getByLabel('Day', { exact: true }).fill(day);
    await loaded(page, day);
    await expect.poll(() => card(page, a.id, techs.ana.id, 9).count()).toBe(1);

    // A reload of the tab keeps the key (sessionStorage) and the day (address).
    await page.reload();
    await loaded(page, day);
    expect(await card(page, a.id, techs.ana.id, 9).count()).toBe(1);

    // Forget key: the key leaves the tab and the key form is back.
    await page.getByRole('button', { name: 'Forget key' }).click();
    await page.getByRole('textbox', { name: 'API key', exact: true }).waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('fieldline.board.key'))).toBeNull();
    expect(await page.locator('#board-section').isVisible()).toBe(false);

    expect(cspViolations).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
    expectNoOutsideRequests(browser);
  });

  it('sends the page with its scripts from this server only (versioned assets, no inline script) and a CSP that allows nothing else', async () => {
    const res = await fetch(`${t.url}/board`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/unsafe-eval|script-src[^;]*unsafe-inline/);
    const text = await res.text();
    const scripts = [...text.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.map((m) => m[2].trim())).toEqual(['', '']);
    const sources = scripts.map((m) => /src="([^"]+)"/.exec(m[1])?.[1] ?? '');
    expect(sources[0]).toMatch(/^\/assets\/graphql-ws\/\d+\.\d+\.\d+\/graphql-ws\.min\.js$/);
    expect(sources[1]).toMatch(/^\/assets\/board\/[0-9a-f]{16}\/board\.js$/);
    for (const source of sources) {
      const asset = await fetch(`${t.url}${source}`);
      expect(asset.status, source).toBe(200);
      expect(asset.headers.get('content-type'), source).toMatch(/^text\/javascript/);
      expect(asset.headers.get('cache-control'), source).toBe('public, max-age=31536000, immutable');
    }
    // Another hash of the board's script is not ours.
    expect((await fetch(`${t.url}/assets/board/0000000000000000/board.js`)).status).toBe(404);
  });

  it('a refused key brings the key form back with the reason, and keeps nothing', BROWSER_TEST, async () => {
    const { page } = await openPage();
    await page.goto(`${t.url}/board?day=2031-03-05`);
    await page.getByRole('textbox', { name: 'API key', exact: true }).fill('svc_not_a_key');
    await page.getByRole('button', { name: 'Open the board' }).click();
    await expect.poll(() => page.locator('#key-error').innerText()).toMatch(/^The key was refused: /);
    expect(await page.locator('#key-section').isVisible()).toBe(true);
    expect(await page.locator('#board-section').isVisible()).toBe(false);
    expect(await page.evaluate(() => sessionStorage.getItem('fieldline.board.key'))).toBeNull();
    expect(browser.pageErrors).toEqual([]);
    expectNoOutsideRequests(browser);
  });

  it('moves a card within 1 s of a REST PATCH of its job: another technician, another hour, another day (live, jobEvents)', BROWSER_TEST, async () => {
    const { page, cspViolations } = await openPage();
    const day = '2031-03-10';
    await page.goto(`${t.url}/board`);
    const [nine, two, nextDay] = await Promise.all([localInstant(page, day, 9), localInstant(page, day, 14), localInstant(page, '2031-03-11', 9)]);
    let moving = await job({ title: 'Moves around', start: nine, hours: 2, assignees: [techs.ana.id] });
    // Ben has a job that day, so he has a column.
    await job({ title: "Ben's own", start: nine, assignees: [techs.ben.id] });
    await openBoard(page, day);
    await page.locator('#live[data-state="live"]').waitFor();
    await card(page, moving.id, techs.ana.id, 9).waitFor();

    // Reassigned to Ben.
    let res = await patch(api, 'jobs', moving, { assignments: [{ user_id: techs.ben.id }] });
    expect(res.status, res.text).toBe(200);
    await card(page, moving.id, techs.ben.id, 9).waitFor({ timeout: LIVE_DEADLINE_MS });
    expect(await card(page, moving.id, techs.ana.id).count()).toBe(0);
    moving = { ...moving, etag: res.headers.get('etag')! };

    // Rescheduled to 14:00.
    res = await patch(api, 'jobs', moving, { scheduled_start: two, scheduled_end: new Date(Date.parse(two) + 2 * 3600_000).toISOString() });
    expect(res.status, res.text).toBe(200);
    await card(page, moving.id, techs.ben.id, 14).waitFor({ timeout: LIVE_DEADLINE_MS });
    expect(await card(page, moving.id, techs.ben.id, 14).innerText()).toContain('14:00–16:00');
    expect(await card(page, moving.id, techs.ben.id, 9).count()).toBe(0);
    moving = { ...moving, etag: res.headers.get('etag')! };

    // Moved to the next day: it leaves this day's board.
    res = await patch(api, 'jobs', moving, { scheduled_start: nextDay, scheduled_end: new Date(Date.parse(nextDay) + 3600_000).toISOString() });
    expect(res.status, res.text).toBe(200);
    await page.locator(`#board .card[data-job-id="${moving.id}"]`).waitFor({ state: 'detached', timeout: LIVE_DEADLINE_MS });

    // A job created for the day appears.
    const added = await job({ title: 'Just booked', start: two, assignees: [techs.ana.id] });
    await card(page, added.id, techs.ana.id, 14).waitFor({ timeout: LIVE_DEADLINE_MS });

    // Every change came as an event the server served (an event it fails to serve makes the board read the whole
    // day again, and says so in the banner).
    expect(await page.locator('#banner').isVisible() ? await page.locator('#banner-text').innerText() : '').toBe('');
    expect(await page.locator('#live').getAttribute('data-state')).toBe('live');

    expect(cspViolations).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
    expectNoOutsideRequests(browser);
  });

  it('a drag onto another technician, or onto another column and hour, is written with updateJob and visible over REST', BROWSER_TEST, async () => {
    const { page, cspViolations } = await openPage();
    const day = '2031-03-17';
    await page.goto(`${t.url}/board`);
    const [ten, fiveTen] = await Promise.all([localInstant(page, day, 10, 30), localInstant(page, day, 15, 30)]);
    const dragged = await job({ title: 'Drag me', start: ten, hours: 1.5, assignees: [techs.ana.id, techs.cy.id] });
    await job({ title: "Ben's own", start: ten, assignees: [techs.ben.id] });
    await openBoard(page, day);

    // Ana's card onto Ben's column header: Ana's assignment becomes Ben's, Cy's is kept, the time is kept.
    await card(page, dragged.id, techs.ana.id, 10).dragTo(page.locator(`#board th[data-user-id="${techs.ben.id}"]`));
    await card(page, dragged.id, techs.ben.id, 10).waitFor();
    expect(await card(page, dragged.id, techs.ana.id).count()).toBe(0);
    let rest = await readRecord(api, 'jobs', dragged.id);
    expect(rest.record.assignments.map((a: { user_id: number }) => a.user_id).sort()).toEqual([techs.ben.id, techs.cy.id].sort());
    expect(rest.record.scheduled_start).toBe(ten);

    // Cy's card onto the Unassigned column at 15:00: Cy's assignment removed, start 15:30 (minutes kept), same length.
    await card(page, dragged.id, techs.cy.id, 10).dragTo(page.locator(`#board td[data-user-id=""][data-hour="15"]`));
    await card(page, dragged.id, techs.ben.id, 15).waitFor();
    rest = await readRecord(api, 'jobs', dragged.id);
    expect(rest.record.assignments.map((a: { user_id: number }) => a.user_id)).toEqual([techs.ben.id]);
    expect(rest.record.scheduled_start).toBe(fiveTen);
    expect(rest.record.scheduled_end).toBe(new Date(Date.parse(fiveTen) + 1.5 * 3600_000).toISOString());
    // Cy had no other job: his column stays for the tab, empty.
    expect(await page.locator('#board thead th').allInnerTexts()).toEqual(['Time', 'Unassigned (0)', 'Ana Alvarez (0)', 'Ben Brooks (2)', 'Cy Carter (0)']);

    // Ben's card onto Unassigned: no assignment left, shown in Unassigned.
    await card(page, dragged.id, techs.ben.id, 15).dragTo(page.locator(`#board th[data-user-id=""]`));
    await card(page, dragged.id, '', 15).waitFor();
    rest = await readRecord(api, 'jobs', dragged.id);
    expect(rest.record.assignments).toEqual([]);

    // The keyboard way: Move… on the card, a technician and a time in the dialog.
    await card(page, dragged.id, '', 15).getByRole('button', { name: /^Move job/ }).click();
    const dialog = page.getByRole('dialog', { name: /^Move job/ });
    await dialog.getByLabel('Technician').selectOption({ label: 'Ana Alvarez' });
    await dialog.getByLabel('Start').fill('08:45');
    await dialog.getByRole('button', { name: 'Move', exact: true }).click();
    await card(page, dragged.id, techs.ana.id, 8).waitFor();
    rest = await readRecord(api, 'jobs', dragged.id);
    expect(rest.record.assignments.map((a: { user_id: number }) => a.user_id)).toEqual([techs.ana.id]);
    expect(rest.record.scheduled_start).toBe(await localInstant(page, day, 8, 45));

    expect(cspViolations).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
    expectNoOutsideRequests(browser);
  });

  it("a drag with a stale etag (another dispatcher moved the job first) shows updateJob's userErrors message and then the job as it is", BROWSER_TEST, async () => {
    const { page, cspViolations } = await openPage();
    // The board's WebSocket goes through this route, which holds back what the server sends while `holding`: the
    // page cannot learn of the other dispatcher's change before the drag, whatever the timing.
    let holding = true;
    const held: { ws: WebSocketRoute; message: string | Buffer }[] = [];
    await page.routeWebSocket(
      (url) => url.pathname === '/graphql',
      (ws) => {
        const server = ws.connectToServer();
        server.onMessage((message) => {
          const type = typeof message === 'string' ? (JSON.parse(message) as { type?: string }).type : undefined;
          if (holding && type === 'next') held.push({ ws, message });
          else ws.send(message);
        });
      },
    );
    const day = '2031-03-24';
    await page.goto(`${t.url}/board`);
    const eleven = await localInstant(page, day, 11);
    const contested = await job({ title: 'Contested', start: eleven, assignees: [techs.ana.id] });
    await job({ title: "Ben's own", start: eleven, assignees: [techs.ben.id] });
    await job({ title: "Cy's own", start: eleven, assignees: [techs.cy.id] });
    await openBoard(page, day);
    await card(page, contested.id, techs.ana.id, 11).waitFor();
    const shownEtag = await card(page, contested.id, techs.ana.id, 11).getAttribute('data-etag');
    expect(shownEtag).toBe(contested.etag);

    // The other dispatcher gives the job to Cy.
    const res = await patch(api, 'jobs', contested, { assignments: [{ user_id: techs.cy.id }] });
    expect(res.status, res.text).toBe(200);
    expect(await card(page, contested.id, techs.ana.id, 11).getAttribute('data-etag')).toBe(contested.etag);

    // This dispatcher drags the card (still showing Ana) to Ben: refused, with the message of userErrors.
    await card(page, contested.id, techs.ana.id, 11).dragTo(page.locator(`#board th[data-user-id="${techs.ben.id}"]`));
    const banner = page.locator('#banner');
    await banner.waitFor();
    const text = await banner.innerText();
    expect(text).toContain(`Job ${contested.record.number} was not moved`);
    expect(text).toContain('Someone else changed this job first');
    expect(text).toContain('ifMatch does not match the current etag of the record');
    // The card is read again: it now shows the job where the other dispatcher put it, with its message.
    await card(page, contested.id, techs.cy.id, 11).waitFor();
    expect(await card(page, contested.id, techs.ana.id).count()).toBe(0);
    expect(await card(page, contested.id, techs.ben.id).count()).toBe(0);
    expect(await card(page, contested.id, techs.cy.id, 11).getAttribute('data-etag')).toBe(res.headers.get('etag'));
    expect(await card(page, contested.id, techs.cy.id, 11).locator('.card-error').innerText()).toContain('Someone else changed this job first');
    // Nothing was written by the refused drag.
    const rest = await readRecord(api, 'jobs', contested.id);
    expect(rest.etag).toBe(res.headers.get('etag'));
    expect(rest.record.assignments.map((a: { user_id: number }) => a.user_id)).toEqual([techs.cy.id]);

    // What the server sent meanwhile, once let through, leaves the card where it is.
    holding = false;
    for (const { ws, message } of held.splice(0)) ws.send(message);
    await page.waitForTimeout(200);
    expect(await card(page, contested.id, techs.cy.id, 11).count()).toBe(1);
    expect(await page.locator(`#board .card[data-job-id="${contested.id}"]`).count()).toBe(1);

    expect(cspViolations).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
    expectNoOutsideRequests(browser);
  });
});
