import { writeFileSync } from 'node:fs';
import { it } from 'vitest';
import { highRateLimits, useTenant, useTestApp } from '../helpers/app.ts';
import { mcpClient } from '../mcp/helpers.ts';
const t = useTestApp({ rateLimits: highRateLimits });
const { tenant } = useTenant(t);
it('dumps', async () => {
  const c = await mcpClient(t, tenant.token);
  const { tools } = await c.listTools();
  writeFileSync('/tmp/tools.json', JSON.stringify(tools, null, 1));
  writeFileSync('/tmp/openapi.json', JSON.stringify((await t.client().get('/openapi.json')).body, null, 1));
  await c.close();
});
