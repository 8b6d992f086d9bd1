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
  /** Raw body string (sent as is, Content-Type from headers). */
  raw?: string;
  headers?: Record<string, string>;
}

export function client(baseUrl: string, defaultToken?: string) {
  async function request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    const token = options.token === undefined ? defaultToken : options.token;
    if (token) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const url = `${baseUrl}${path}`;
    const res = await fetch(url, { method, headers, body });
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
