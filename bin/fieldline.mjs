#!/usr/bin/env node
// The `fieldline` admin command (npx fieldline ..., node_modules/.bin/fieldline ...).
//
// The `node` on PATH may be older than the Node 24 the project needs (the project brings Node 24 as the
// `node` npm package), and the sources are TypeScript. So this launcher, which any Node can run, starts
// src/cli/main.ts under the project's Node 24 with the tsx loader and ExperimentalWarning silenced, passes
// stdio through untouched, forwards signals and exits with the child's exit code.
import { spawn } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(realpathSync(fileURLToPath(import.meta.url))), '..');
const require = createRequire(path.join(root, 'package.json'));

function resolveFrom(specifier) {
  try {
    return require.resolve(specifier);
  } catch {
    return null;
  }
}

function fail(message) {
  const json = process.argv.includes('--json');
  if (json) process.stdout.write(`${JSON.stringify({ error: { message } })}\n`);
  else process.stderr.write(`fieldline: ${message}\n`);
  process.exit(1);
}

/** Node 24: the `node` package of the project (wherever npm placed it), else this Node when it is recent enough. */
function projectNode() {
  const pkg = resolveFrom('node/package.json');
  const candidates = [pkg && path.join(path.dirname(pkg), 'bin', 'node'), path.join(root, 'node_modules', '.bin', 'node')];
  for (const candidate of candidates) if (candidate && existsSync(candidate)) return candidate;
  if (Number(process.versions.node.split('.')[0]) >= 24) return process.execPath;
  return null;
}

const node = projectNode();
if (!node) fail(`Node 24 is required (this is Node ${process.versions.node}); run npm install in ${root} to install it`);
const tsxPkg = resolveFrom('tsx/package.json');
const tsxLoader = tsxPkg && path.join(path.dirname(tsxPkg), 'dist', 'loader.mjs');
if (!tsxLoader || !existsSync(tsxLoader)) fail(`tsx is missing; run npm install in ${root}`);

const child = spawn(
  node,
  ['--disable-warning=ExperimentalWarning', '--import', pathToFileURL(tsxLoader).href, path.join(root, 'src', 'cli', 'main.ts'), ...process.argv.slice(2)],
  { stdio: 'inherit', env: process.env },
);

const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const forward = (signal) => {
  if (!child.killed) child.kill(signal);
};
for (const signal of signals) process.on(signal, forward);

child.on('error', (error) => fail(`cannot start ${node}: ${error.message}`));
child.on('exit', (code, signal) => {
  for (const s of signals) process.removeListener(s, forward);
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});
