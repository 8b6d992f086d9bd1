import http from 'node:http';
import { expect } from 'vitest';

/** A thin fetch wrapper for black-box tests: JSON in, parsed JSON (or null) out, headers kept. */
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
  /** The URL that was requested (relative references in headers, such as Link, resolve against it). */
  url?: string;
}

export interface RequestOptions {
  token?: string | null;
  body?: unknown;
  /** Raw body (sent as is, Content-Type from headers); a stream is sent half-duplex. */
  raw?: BodyInit;
  headers?: Record<string, string>;
}

export function client(baseUrl: string, defaultToken?: string) {
  async function request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    const token = options.token === undefined ? defaultToken : options.token;
    if (token) headers.authorization = `Bearer ${token}`;
    let body: BodyInit | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const url = `${baseUrl}${path}`;
    const init: RequestInit & { duplex?: 'half' } = { method, headers, body };
    if (body instanceof ReadableStream) init.duplex = 'half';
    const res = await fetch(url, init);
    const text = await res.text();
    let parsed: any = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    return { status: res.status, headers: res.headers, body: parsed, text, url };
  }
  return {
    request,
    get: <T = any>(path: string, options?: RequestOptions) => request<T>('GET', path, options),
    post: <T = any>(path: string, body?: unknown, options?: RequestOptions) => request<T>('POST', path, { ...options, body }),
    patch: <T = any>(path: string, body: unknown, options?: RequestOptions) => request<T>('PATCH', path, { ...options, body }),
    delete: <T = any>(path: string, options?: RequestOptions) => request<T>('DELETE', path, options),
  };
}

export type Client = ReturnType<typeof client>;

/**
 * The RateLimit-* headers of a response, as numbers: each present and a whole number, remaining at most the
 * limit, reset within the minute.
 */
export function rateLimitHeaders(res: { status: number; headers: Headers; text?: string; body?: unknown }): { limit: number; remaining: number; reset: number } {
  const context = `${res.status} ${(res.text ?? JSON.stringify(res.body)).slice(0, 200)}`;
  const [limit, remaining, reset] = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'].map((name) => {
    const value = res.headers.get(name);
    expect(value, `${name}: ${context}`).toMatch(/^\d+$/);
    return Number(value);
  });
  expect(remaining, context).toBeLessThanOrEqual(limit);
  expect(reset, context).toBeLessThanOrEqual(60);
  return { limit, remaining, reset };
}

/** GET /healthz on an agent's socket: the status and the local port it went out of. */
export function healthzOn(url: string, agent: http.Agent): Promise<{ status: number; localPort: number }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${url}/healthz`, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, localPort: req.socket!.localPort! }));
    });
    req.on('error', reject);
  });
}
