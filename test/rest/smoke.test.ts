import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { client } from '../helpers/http.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('a new account', () => {
  it('creates, reads, updates and deletes a customer with its key', async () => {
    const tenant = await t.tenant();
    const api = client(`${t.url}/api/v2`, tenant.token);
    const created = await api.post('/customers', { customer: { organization: 'Acme HVAC' } });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    const etag = created.headers.get('etag')!;
    const updated = await api.patch(`/customers/${id}`, { customer: { reference: 'ERP-7' } }, { headers: { 'if-match': etag } });
    expect(updated.status).toBe(200);
    expect(updated.body.data.reference).toBe('ERP-7');
    const deleted = await api.delete(`/customers/${id}`, { headers: { 'if-match': updated.headers.get('etag')! } });
    expect(deleted.status).toBe(204);
    expect((await api.get(`/customers/${id}`)).status).toBe(404);
  });
});
