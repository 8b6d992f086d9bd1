import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.ts';

// Requests Node's HTTP parser refuses before the app sees them are answered as problem+json with a catalog code.
const t = useTestApp();

describe('requests the HTTP parser refuses', () => {
  it('answers a request line and headers over 16 KiB with 431 request.headers_too_large as problem+json', async () => {
    const res = await fetch(`${t.url}/api/v2/me?fuzz=${'%00'.repeat(100_000)}`);
    expect(res.status).toBe(431);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    const body = await res.json();
    expect(body).toMatchObject({ status: 431, code: 'request.headers_too_large', instance: '/api/v2/me' });
    expect(body.request_id).toBeTruthy();
    // The server keeps serving.
    expect((await fetch(`${t.url}/api/v2/me`)).status).toBe(401);
  });
});
