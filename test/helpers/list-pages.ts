import { expect } from 'vitest';
import { client, type ApiResponse } from './http.ts';

/** The URL of rel="next" in a Link header (a relative reference, resolved against the page's URL), or null. */
export function nextLink(res: ApiResponse): string | null {
  const link = res.headers.get('link');
  if (!link) return null;
  const m = /^<([^>]+)>;\s*rel="next"$/.exec(link.trim());
  expect(m, `Link header ${link}`).not.toBeNull();
  expect(res.url, 'the URL of the page, to resolve the link against').toBeDefined();
  return new URL(m![1], res.url).toString();
}

/** The cursor carried by a next link. */
export function cursorOf(res: ApiResponse): string {
  const next = nextLink(res);
  expect(next, 'expected a next page').not.toBeNull();
  return new URL(next!).searchParams.get('cursor')!;
}

/**
 * Follows Link rel="next" from the first page to the last, checking on every page that the Link header is
 * present exactly when has_more is true. Returns every record in the order served and the pages fetched.
 */
export async function followPages(token: string, firstUrl: string, maxPages = 200): Promise<{ records: any[]; pages: ApiResponse[] }> {
  const http = client('', token);
  const records: any[] = [];
  const pages: ApiResponse[] = [];
  let url: string | null = firstUrl;
  while (url) {
    const res = await http.get(url);
    expect(res.status, res.text).toBe(200);
    expect(typeof res.body.has_more).toBe('boolean');
    const next = nextLink(res);
    expect(next !== null, `Link present exactly when has_more (${url})`).toBe(res.body.has_more);
    records.push(...res.body.data);
    pages.push(res);
    url = next;
    if (pages.length > maxPages) throw new Error('too many pages');
  }
  return { records, pages };
}
