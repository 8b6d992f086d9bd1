import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../helpers/cli.ts';
import { useTenant, useTestApp } from '../helpers/app.ts';

// examples/typescript: the client a partner generates from the served document with openapi-typescript and
// drives with openapi-fetch. Generated again here from the running server, type-checked against the example and
// run against it, so a change to the document that breaks generated clients fails the suite.

const run = promisify(execFile);
const bin = (name: string) => path.join(projectRoot, 'node_modules', '.bin', name);
const example = path.join(projectRoot, 'examples', 'typescript');
// Inside the project, so that the example's imports (openapi-fetch) resolve from its node_modules.
const work = path.join(projectRoot, 'node_modules', '.cache', `fieldline-example-${process.pid}`);

const t = useTestApp({ env: { LOG_LEVEL: 'silent' } });
const { tenant } = useTenant(t);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the typed TypeScript client of examples/typescript', () => {
  it('is generated from the served document, type-checks, walks the README flow against the server, and matches the committed types', async () => {
    mkdirSync(work, { recursive: true });
    // The package as a partner copies it out: its walkthrough, package.json and tsconfig.json (not its api.d.ts,
    // generated again below). Inside the project, its imports resolve from the project's node_modules.
    for (const file of ['walkthrough.ts', 'package.json', 'tsconfig.json']) cpSync(path.join(example, file), path.join(work, file));
    await run(bin('openapi-typescript'), [`${t.url}/api/v2/openapi.json`, '-o', path.join(work, 'api.d.ts')], { cwd: projectRoot });
    const typecheck = await run(bin('tsc'), ['-p', path.join(work, 'tsconfig.json')], { cwd: work }).catch((error) => error);
    expect(typecheck.stdout ?? '', 'the example does not type-check against types generated from the served document').toBe('');

    const walk = await run(bin('tsx'), [path.join(work, 'walkthrough.ts')], {
      cwd: work,
      env: { ...process.env, NODE_OPTIONS: '', FIELDLINE_URL: t.url, FIELDLINE_KEY: tenant.token },
    });
    expect(walk.stdout).toMatch(/^account .+; API version \d{4}-\d{2}-\d{2}; \d+ scopes$/m);
    expect(walk.stdout).toMatch(/^listed 3 customers matching ".+" in 2 pages/m);
    expect(walk.stdout).toMatch(/^stale ETag refused: 412 precondition.failed$/m);
    expect(walk.stdout).toMatch(/^deleted; GET now answers 404 resource.not_found$/m);
    expect(walk.stdout).toMatch(/^customer statuses: Active, Inactive$/m);

    const committed = readFileSync(path.join(example, 'api.d.ts'), 'utf8');
    expect(readFileSync(path.join(work, 'api.d.ts'), 'utf8') === committed, 'examples/typescript/api.d.ts is stale: run `npm run artifacts`').toBe(true);
  }, 120_000);

  it('is a package of its own: it declares every package it imports or runs, in ranges the project installs', () => {
    const manifest = JSON.parse(readFileSync(path.join(example, 'package.json'), 'utf8')) as { type?: string; dependencies?: Record<string, string>; devDependencies?: Record<string, string>; scripts: Record<string, string> };
    const root = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    const declared = { ...manifest.dependencies, ...manifest.devDependencies };
    expect(manifest.type).toBe('module');
    const source = readFileSync(path.join(example, 'walkthrough.ts'), 'utf8');
    const imported = [...source.matchAll(/^import .* from '([^.][^']*)';$/gm)].map((m) => m[1]).filter((name) => !name.startsWith('node:'));
    const ran = Object.values(manifest.scripts).map((script) => script.split(' ')[0]);
    const binOf: Record<string, string> = { tsc: 'typescript', tsx: 'tsx', 'openapi-typescript': 'openapi-typescript' };
    expect(imported).toContain('openapi-fetch');
    for (const name of [...imported, ...ran.map((command) => binOf[command] ?? command), '@types/node']) {
      expect(declared[name], `examples/typescript/package.json does not declare ${name}`).toBeDefined();
      // The range the suite tests it with: the project's own.
      expect(declared[name], `${name}: the example's range differs from the project's`).toBe(root.dependencies[name] ?? root.devDependencies[name]);
    }
  });
});
