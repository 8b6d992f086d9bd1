import { execFile } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// The served OpenAPI document passes the linters an integration engineer runs on day one: Redocly CLI with its
// recommended ruleset (redocly.yaml) and Spectral with spectral:oas (.spectral.yaml), through their CLIs on a
// temp copy of GET /api/v2/openapi.json. Errors fail; warnings are printed. Offline: no telemetry, no update check.

const root = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
let t: TestApp;
let dir: string;
let file: string;

beforeAll(async () => {
  t = await startTestApp();
  const served = await fetch(`${t.url}/api/v2/openapi.json`);
  expect(served.status).toBe(200);
  dir = mkdtempSync(join(tmpdir(), 'fieldline-openapi-'));
  file = join(dir, 'openapi.json');
  writeFileSync(file, await served.text());
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await t.close();
});

/** Runs a CLI of node_modules/.bin with this Node; a non-zero exit (it found errors) still gives its output. */
async function cli(bin: string, args: string[]): Promise<string> {
  const script = realpathSync(join(root, 'node_modules/.bin', bin));
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
  try {
    return (await run(process.execPath, [script, ...args], { cwd: root, env, maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string };
    if (!failed.stdout) throw new Error(`${bin} failed: ${failed.stderr ?? String(error)}`);
    return failed.stdout;
  }
}

describe('the served OpenAPI document under the linters', () => {
  it('has no Redocly error (recommended ruleset)', async () => {
    const report = JSON.parse(await cli('redocly', ['lint', '--config', join(root, 'redocly.yaml'), '--format=json', file]));
    const errors = report.problems.filter((p: { severity: string }) => p.severity === 'error');
    console.log(`redocly lint: ${report.totals.errors} errors, ${report.totals.warnings} warnings`);
    expect(errors.map((p: { ruleId: string; message: string }) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals.errors).toBe(0);
  }, 180_000);

  it('has no Spectral error (spectral:oas)', async () => {
    const results: { code: string; message: string; severity: number; path: string[] }[] = JSON.parse(
      await cli('spectral', ['lint', '--ruleset', join(root, '.spectral.yaml'), '--format', 'json', file]),
    );
    const errors = results.filter((r) => r.severity === 0);
    const warnings = new Map<string, number>();
    for (const r of results.filter((r) => r.severity === 1)) warnings.set(r.code, (warnings.get(r.code) ?? 0) + 1);
    console.log(`spectral lint: ${errors.length} errors, ${results.length - errors.length} warnings and hints ${JSON.stringify(Object.fromEntries(warnings))}`);
    expect(errors.map((r) => `${r.code} at ${r.path.join('.')}: ${r.message}`)).toEqual([]);
  }, 180_000);
});
