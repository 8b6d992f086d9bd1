// npm run check:adding-a-resource — follows docs/adding-a-resource.md literally in a scratch copy of the working
// tree: the Prisma model, the declaration file and the import come from the page's own code blocks, the commands
// from its sh block; then the typecheck and the generic suites (OpenAPI, declared SQL, tenant sweep, GraphQL
// schema and descriptions, hostile input, the example client) run on the result. It fails when the page no
// longer yields a working resource, and prints what was touched by hand. CI runs it (.ci/run).
import { execFileSync, execSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const doc = readFileSync(path.join(root, 'docs/adding-a-resource.md'), 'utf8');
const keep = process.argv.includes('--keep');

/** The page's fenced blocks of a language, in order, each with the paragraph before it. */
function blocks(language: string): { code: string; before: string }[] {
  return [...doc.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((m) => ({
    code: m[1],
    before: doc.slice(Math.max(0, (m.index ?? 0) - 400), m.index),
  }));
}

const fail = (message: string): never => {
  console.error(`check:adding-a-resource: ${message}`);
  process.exit(1);
};

const [model] = blocks('prisma');
const [declaration, importLine] = blocks('ts');
const [commands] = blocks('sh');
if (!model || !declaration || !importLine || !commands) fail('the page lost one of its code blocks (prisma model, declaration, import line, commands)');
const declarationPath = [...declaration.before.matchAll(/`(src\/resources\/[^`]+\.resource\.ts)`/g)].at(-1)?.[1] ?? fail('no declaration path (`src/resources/...resource.ts`) before the declaration block');
const exported = /export const (\w+) = defineResource/.exec(declaration.code)?.[1] ?? fail('the declaration block exports no defineResource(...)');

// A scratch copy of the working tree (tracked and new files), sharing node_modules.
const scratch = mkdtempSync(path.join(tmpdir(), 'fl-add-resource-'));
const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
for (const file of files) {
  if (!existsSync(path.join(root, file))) continue;
  mkdirSync(path.dirname(path.join(scratch, file)), { recursive: true });
  cpSync(path.join(root, file), path.join(scratch, file));
}
symlinkSync(path.join(root, 'node_modules'), path.join(scratch, 'node_modules'), 'dir');
const run = (command: string) => {
  console.log(`$ ${command}`);
  execSync(command, { cwd: scratch, stdio: 'inherit', env: { ...process.env, CI: 'true' } });
};

const hashes = (dir: string) => {
  const out = new Map<string, string>();
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.set(path.relative(scratch, full), createHash('sha256').update(readFileSync(full)).digest('hex'));
    }
  };
  walk(path.join(scratch, dir));
  return out;
};
const adapters = ['src/rest', 'src/graphql', 'src/kernel'].map(hashes);

try {
  // Step 1: the table.
  const schemaPath = path.join(scratch, 'prisma/schema.prisma');
  writeFileSync(schemaPath, `${readFileSync(schemaPath, 'utf8').trimEnd()}\n\n${model.code}`);
  // Step 2: the declaration file.
  mkdirSync(path.dirname(path.join(scratch, declarationPath)), { recursive: true });
  writeFileSync(path.join(scratch, declarationPath), declaration.code);
  // Step 3: the line in the resource list, and its import.
  const indexPath = path.join(scratch, 'src/resources/index.ts');
  const index = readFileSync(indexPath, 'utf8');
  const listEnd = index.indexOf('\n];', index.indexOf('export const resources = ['));
  if (listEnd < 0) fail('src/resources/index.ts has no `export const resources = [ ... ];`');
  writeFileSync(indexPath, `${importLine.code}${index.slice(0, listEnd)}\n  ${exported},${index.slice(listEnd)}`);
  // Step 4: the page's commands.
  for (const line of commands.code.split('\n')) {
    const command = line.replace(/#.*$/, '').trim();
    if (command) run(command);
  }
  const migrations = readdirSync(path.join(scratch, 'prisma/migrations')).filter((name) => !existsSync(path.join(root, 'prisma/migrations', name)));
  if (migrations.length !== 1) fail(`expected one new migration, found ${migrations.length}`);
  const migration = readFileSync(path.join(scratch, 'prisma/migrations', migrations[0], 'migration.sql'), 'utf8');
  run('npm run -s typecheck');
  for (const [i, dir] of ['src/rest', 'src/graphql', 'src/kernel'].entries()) {
    const after = hashes(dir);
    const changed = [...new Set([...after.keys(), ...adapters[i].keys()])].filter((file) => after.get(file) !== adapters[i].get(file));
    if (changed.length > 0) fail(`the steps changed ${changed.join(', ')}`);
  }
  const lines = (text: string) => text.trimEnd().split('\n').length;
  console.log(
    [
      'By hand: 3 files',
      `  prisma/schema.prisma        +${lines(model.code)} lines`,
      `  ${declarationPath}  ${lines(declaration.code)} lines`,
      `  src/resources/index.ts      +2 lines`,
      `Generated: prisma/migrations/${migrations[0]}/migration.sql (${lines(migration)} lines, ${migration.includes('-- Hand-written') ? 'with' : 'without'} the declared SQL), schema.graphql, examples/typescript/api.d.ts`,
      'Nothing changed in src/rest, src/graphql or src/kernel.',
    ].join('\n'),
  );
  run(
    'npx vitest run test/rest/declared-sql.test.ts test/rest/openapi.test.ts test/security/tenant-sweep.test.ts test/graphql/schema.test.ts test/graphql/descriptions.test.ts test/rest/hostile-input.test.ts test/examples/typescript-client.test.ts test/architecture',
  );
  console.log('check:adding-a-resource: the page yields a working resource');
} finally {
  if (keep) console.log(`scratch copy kept: ${scratch}`);
  else rmSync(scratch, { recursive: true, force: true });
}
