import { startTestApp } from '../helpers/app.ts';
import { startReceiver } from '../helpers/webhook-receivers.ts';
import { WriteWatch } from './fuzz-world.ts';

// What the two fuzz suites (openapi-fuzz.test.ts over REST, mcp-fuzz.test.ts over MCP) share: their knobs, the app
// they start while the file is collected (so the operations or tools, one test each, are known before the tests are
// declared), and the per-database seed of each property.

const list = (value: string | undefined) => value?.split(',').map((s) => s.trim()).filter(Boolean);

/** FUZZ_SEED, FUZZ_MAX_SHRINKS, FUZZ_KINDS, FUZZ_PATH and the suite's own narrowing variable (FUZZ_OPS, FUZZ_TOOLS). */
export function fuzzKnobs(narrowBy: string) {
  const only = list(process.env[narrowBy]);
  const kinds = list(process.env.FUZZ_KINDS);
  const replayPath = process.env.FUZZ_PATH;
  return {
    seed: Number(process.env.FUZZ_SEED ?? 20260430),
    maxShrinks: Number(process.env.FUZZ_MAX_SHRINKS ?? 20),
    only,
    kinds,
    replayPath,
    narrowed: Boolean(only || kinds || replayPath),
  };
}

/**
 * The app under fuzz: every write watched (WriteWatch), the rate limits out of the way, webhook endpoints registered
 * at an echo receiver on 127.0.0.1 (the app may reach private addresses here) with short timeouts.
 */
export async function startFuzzApp() {
  const receiver = await startReceiver({ kind: 'echo' });
  const writes = new WriteWatch();
  const testApp = await startTestApp({
    onQuery: writes.note,
    rateLimits: { read: 10_000_000, write: 10_000_000, webhook_ingest: 10_000_000 },
    env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_VERIFY_TIMEOUT_MS: '1000', WEBHOOK_TIMEOUT_MS: '1000' },
  });
  return { receiver, writes, testApp };
}

/** A property's seed from the run's seed, the database and the property's own parts (each run sends different requests). */
export function deriveSeed(seed: number, database: string, ...parts: string[]): number {
  let h = 0x811c9dc5;
  for (const ch of `${database}|${parts.join('|')}`) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193);
  return (seed ^ h) | 0;
}
