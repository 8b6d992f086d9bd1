import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { bindMigrationAwareSqlAdapterFactory, type SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { SchemaEngine } from '@prisma/schema-engine-wasm';

// Migrations are Prisma migration folders applied through the wasm schema engine, so that no native engine
// has to be downloaded. The `_prisma_migrations` bookkeeping is Prisma's own: `prisma migrate deploy` agrees.

const projectRoot = path.resolve(import.meta.dirname, '../..');
export const schemaPath = path.join(projectRoot, 'prisma/schema.prisma');
export const migrationsDir = path.join(projectRoot, 'prisma/migrations');
const filters = { externalTables: [], externalEnums: [] };

export function loadMigrationsList() {
  mkdirSync(migrationsDir, { recursive: true });
  const lockPath = path.join(migrationsDir, 'migration_lock.toml');
  const directories = readdirSync(migrationsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  return {
    baseDir: migrationsDir,
    lockfile: { path: 'migration_lock.toml', content: existsSync(lockPath) ? readFileSync(lockPath, 'utf8') : null },
    shadowDbInitScript: '',
    migrationDirectories: directories.map((name) => {
      const file = path.join(migrationsDir, name, 'migration.sql');
      return {
        path: name,
        migrationFile: {
          path: 'migration.sql',
          content: existsSync(file)
            ? ({ tag: 'ok', value: readFileSync(file, 'utf8') } as const)
            : ({ tag: 'error', value: 'missing migration.sql' } as const),
        },
      };
    }),
  };
}

export async function openSchemaEngine(factory: SqlMigrationAwareDriverAdapterFactory, log: (message: string) => void = () => {}) {
  const schema = readFileSync(schemaPath, 'utf8');
  return SchemaEngine.new(
    { datamodels: [[schemaPath, schema]] },
    (message: string) => log(message),
    bindMigrationAwareSqlAdapterFactory(factory),
  );
}

export async function applyMigrations(factory: SqlMigrationAwareDriverAdapterFactory): Promise<string[]> {
  const engine = await openSchemaEngine(factory);
  try {
    const result = await engine.applyMigrations({ migrationsList: loadMigrationsList(), filters });
    return result.appliedMigrationNames;
  } finally {
    engine.free();
  }
}

/**
 * SQL that takes a database with every existing migration applied to the current schema.prisma (for
 * authoring a new migration). The factory must point at a scratch database: the migrations are applied to it.
 */
export async function diffMigrationsToSchema(factory: SqlMigrationAwareDriverAdapterFactory): Promise<string> {
  await applyMigrations(factory);
  const engine = await openSchemaEngine(factory);
  try {
    const schema = { path: schemaPath, content: readFileSync(schemaPath, 'utf8') };
    const result = await engine.diff({
      from: { tag: 'schemaDatasource', files: [schema], configDir: path.dirname(schemaPath) },
      to: { tag: 'schemaDatamodel', files: [schema] },
      script: true,
      exitCode: null,
      filters,
    });
    return result.stdout ?? '';
  } finally {
    engine.free();
  }
}
