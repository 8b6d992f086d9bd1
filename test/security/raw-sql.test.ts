import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// Raw SQL in src/ runs through tenantQuery (src/kernel/tenant-sql.ts), which always binds the caller's account as
// $1. This test reads every .ts file of src/ and fails, naming file:line, wherever code reaches Prisma's raw SQL
// methods itself: `x.$queryRawUnsafe(...)`, `x.$executeRaw\`...\``, `x['$queryRaw']`, `const { $executeRawUnsafe } = x`.
// Only these are exempt: the generated Prisma client, the database layer (src/db: client factory, migrations) and
// tenant-sql.ts itself. Interface members that merely declare such a method (tenant-sql.ts's RawRunner) are not uses.

const root = path.resolve(import.meta.dirname, '../..');

/** What the scan skips, relative to the repository: folders end with '/'. */
const exempt = ['src/generated/', 'src/db/', 'src/kernel/tenant-sql.ts'];

const rawMethods = new Set(['$queryRawUnsafe', '$executeRawUnsafe', '$queryRaw', '$executeRaw']);

/** Every .ts file under src/, as repository-relative paths with '/' separators. */
function sourceFiles(): string[] {
  return readdirSync(path.join(root, 'src'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}

const exemptionOf = (file: string) => exempt.find((rule) => (rule.endsWith('/') ? file.startsWith(rule) : file === rule));

/** The 1-based lines of `text` where code reaches a raw SQL method of Prisma. */
function rawSqlUses(file: string, text: string): number[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const lines: number[] = [];
  const visit = (node: ts.Node) => {
    const name =
      ts.isPropertyAccessExpression(node) ? node.name.text
      : ts.isElementAccessExpression(node) && ts.isStringLiteralLike(node.argumentExpression) ? node.argumentExpression.text
      : ts.isBindingElement(node) ? (node.propertyName ?? node.name).getText(source)
      : undefined;
    if (name !== undefined && rawMethods.has(name)) lines.push(source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return lines;
}

describe('raw SQL goes through tenantQuery', () => {
  const files = sourceFiles();
  const scanned = files.filter((file) => !exemptionOf(file));

  it('scans the source tree, skipping exactly the generated client, src/db and tenant-sql.ts', () => {
    // A tripwire: widening the exemptions is a security decision, to be made here on purpose.
    expect(exempt).toEqual(['src/generated/', 'src/db/', 'src/kernel/tenant-sql.ts']);
    // Each exemption skips something that exists, so none of them is stale or misspelt.
    for (const rule of exempt) expect(files.some((file) => exemptionOf(file) === rule), rule).toBe(true);
    expect(scanned.length).toBeGreaterThan(50);
    for (const file of ['src/kernel/tenancy.ts', 'src/kernel/numbering.ts', 'src/resources/lineitems/parent-totals.ts', 'src/resources/leads/lead-conversion.service.ts']) {
      expect(scanned).toContain(file);
    }
  });

  it('recognises every way of reaching a raw SQL method', () => {
    const sample = [
      'await tx.$queryRawUnsafe(`SELECT 1`);',
      'await tx.$executeRawUnsafe(sql, id);',
      'await db.$queryRaw`SELECT 1`;',
      "await db['$executeRaw']`UPDATE x SET y = 1`;",
      'const { $queryRawUnsafe: run } = tx;',
      '// a comment naming tx.$queryRawUnsafe( is no use',
      'interface Runner { $queryRawUnsafe<T>(query: string): Promise<T> }',
      "await tenantQuery(tx, 'SELECT 1 WHERE $1::uuid IS NOT NULL');",
    ].join('\n');
    expect(rawSqlUses('sample.ts', sample)).toEqual([1, 2, 3, 4, 5]);
  });

  it('no scanned file calls $queryRawUnsafe, $executeRawUnsafe, $queryRaw or $executeRaw', () => {
    const offences = scanned.flatMap((file) => rawSqlUses(file, readFileSync(path.join(root, file), 'utf8')).map((line) => `${file}:${line}`));
    expect(offences, `raw SQL outside tenantQuery (src/kernel/tenant-sql.ts):\n${offences.join('\n')}`).toEqual([]);
  });
});
