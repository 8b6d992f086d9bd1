import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';

// Browser tests: the machine's Chromium (Debian's package; CHROMIUM_PATH to use another), headless, driven by
// playwright-core, offline by construction: every request to a host other than 127.0.0.1/localhost (page,
// frames, workers, WebSockets) is aborted before it leaves the browser and recorded, and each test must end
// with none recorded (useBrowser checks after every test; a test that provokes one on purpose takes it first).
// The flags keep Chromium itself quiet (no component updates, sync, QUIC or background fetches) and the
// profile is a new, empty directory each time, removed afterwards.

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Whether a URL names a host other than this machine (data:, blob: and about: URLs name none). */
export function isOutside(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return true;
  }
  return parsed.hostname !== '' && !LOCAL_HOSTS.has(parsed.hostname);
}

export interface BrowserSession {
  context: BrowserContext;
  /**
   * A new page (tab), closed after the test by useBrowser unless `keep` (then with the browser, after the file: for
   * a heavy page several tests read); its uncaught errors are kept in `pageErrors`.
   */
  newPage(options?: { keep?: boolean }): Promise<Page>;
  /** Uncaught errors of the pages (messages), for assertion messages. */
  pageErrors: string[];
  /** The pages made with `keep`. */
  kept: WeakSet<Page>;
  /** The requests to other hosts attempted since the last call ("METHOD url"), each aborted; the list is emptied. */
  takeOutsideRequests(): string[];
  close(): Promise<void>;
}

function assertChromium(): void {
  try {
    accessSync(CHROMIUM_PATH, constants.X_OK);
  } catch {
    throw new Error(
      `Chromium was not found at ${CHROMIUM_PATH}, and the browser tests need it. Install it (as root: apt-get install -y chromium) ` +
        'or set CHROMIUM_PATH to a Chromium executable.',
    );
  }
}

/** Launches Chromium with a fresh profile and the outside-request guard on its one context. */
export async function openBrowser(): Promise<BrowserSession> {
  assertChromium();
  const profile = mkdtempSync(path.join(tmpdir(), 'fieldline-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
      // Service workers could fetch outside the context's routing: none may run.
      serviceWorkers: 'block',
      timeout: 60_000,
    });
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
  const outside: string[] = [];
  const record = (method: string, url: string) => {
    const entry = `${method} ${url}`;
    if (!outside.includes(entry)) outside.push(entry);
  };
  await context.route('**/*', (route) => {
    const request = route.request();
    if (!isOutside(request.url())) return route.continue();
    record(request.method(), request.url());
    return route.abort('blockedbyclient');
  });
  await context.routeWebSocket(
    () => true,
    (ws) => {
      if (!isOutside(ws.url())) return ws.connectToServer();
      record('WEBSOCKET', ws.url());
      return ws.close();
    },
  );
  // Anything that reached the network layer without passing the route above is recorded too.
  context.on('request', (request) => {
    if (isOutside(request.url())) record(request.method(), request.url());
  });
  const pageErrors: string[] = [];
  const kept = new WeakSet<Page>();
  return {
    context,
    pageErrors,
    kept,
    async newPage(options = {}) {
      const page = await context.newPage();
      page.on('pageerror', (error) => pageErrors.push(error.message));
      if (options.keep) kept.add(page);
      return page;
    },
    takeOutsideRequests() {
      return outside.splice(0);
    },
    async close() {
      try {
        await context.close();
      } finally {
        rmSync(profile, { recursive: true, force: true });
      }
    },
  };
}

/**
 * The browser of a test file: launched in beforeAll (when Chromium is missing or cannot start, every test of
 * the file fails with the reason, and how to install it), closed in afterAll. After each test its pages are closed and the test fails if a
 * request to another host was attempted and not taken by the test (takeOutsideRequests).
 */
export function useBrowser(): BrowserSession {
  let session: BrowserSession | undefined;
  let failure: unknown;
  beforeAll(async () => {
    // A browser that cannot start fails each test of the file with the reason (never a skip).
    session = await openBrowser().catch((error: unknown) => {
      failure = error;
      return undefined;
    });
  }, 90_000);
  afterEach(async () => {
    if (!session) return;
    // A renderer still busy with a heavy page (Redoc, Monaco) on a loaded machine may take long to close; the
    // context closes it in afterAll anyway, so the wait is bounded rather than failing the test that is done.
    const closed = Promise.all(session.context.pages().filter((page) => !session!.kept.has(page)).map((page) => page.close()));
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 20_000).unref())]);
    expect(session.takeOutsideRequests(), 'requests to hosts other than this machine').toEqual([]);
  });
  afterAll(() => session?.close());
  const current = (): BrowserSession => {
    if (failure) throw failure;
    if (!session) throw new Error('useBrowser: the browser starts in beforeAll; use it in hooks and tests');
    return session;
  };
  return {
    get context() {
      return current().context;
    },
    get pageErrors() {
      return current().pageErrors;
    },
    get kept() {
      return current().kept;
    },
    newPage: (options) => current().newPage(options),
    takeOutsideRequests: () => current().takeOutsideRequests(),
    close: () => current().close(),
  };
}

/** Asserts that the browser attempted no request to another host (and empties the record). */
export function expectNoOutsideRequests(browser: BrowserSession): void {
  expect(browser.takeOutsideRequests(), 'requests to hosts other than this machine').toEqual([]);
}
