import { defineConfig } from 'prisma/config';

// Prisma's CLI is used only for `prisma generate` here. Migrations are applied and authored through the
// wasm schema engine (src/db/migrate.ts), because the native engine cannot be downloaded on every machine.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
});
