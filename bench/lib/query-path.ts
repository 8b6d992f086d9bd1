import pg from 'pg';
import { openDatabase } from '../../src/db/client.ts';
import { tenantScoped } from '../../src/kernel/tenancy.ts';

export interface PathCost {
  name: string;
  queriesPerSecond: number;
  /** CPU of this (client) process per query: driver, protocol, row decoding — the database's own work is not in it. */
  cpuMicrosPerQuery: number;
}

async function drive(n: number, concurrency: number, run: () => Promise<unknown>): Promise<{ qps: number; cpu: number }> {
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        next += 1;
        await run();
      }
    }),
  );
  const elapsed = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  return { qps: (n / elapsed) * 1000, cpu: (cpu.user + cpu.system) / n };
}

/**
 * The list statement run N times at the given concurrency through the app's query path (Prisma 7 client over
 * @prisma/adapter-pg with named statements, the tenant-scoped extended client, $queryRawUnsafe) and through pg directly
 * (pool, named prepared statement), same pool size, in this process; alternated so drift hits both alike.
 */
export async function compareQueryPaths(url: string, sql: string, accountId: string, n: number, concurrency: number, poolSize: number): Promise<PathCost[]> {
  const database = await openDatabase({ url, poolSize, migrate: false });
  const client = tenantScoped(database.prisma);
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  const viaPrisma = () => client.$queryRawUnsafe(sql, accountId);
  const viaPg = () => pool.query({ name: 'fl_bench_list', text: sql, values: [accountId] });
  try {
    await drive(500, concurrency, viaPrisma);
    await drive(500, concurrency, viaPg);
    const results = { prisma: [] as { qps: number; cpu: number }[], pg: [] as { qps: number; cpu: number }[] };
    for (let round = 0; round < 3; round++) {
      results.prisma.push(await drive(n, concurrency, viaPrisma));
      results.pg.push(await drive(n, concurrency, viaPg));
    }
    const mid = (values: number[]) => [...values].sort((a, b) => a - b)[1];
    return [
      { name: 'Prisma $queryRawUnsafe (app path)', queriesPerSecond: mid(results.prisma.map((r) => r.qps)), cpuMicrosPerQuery: mid(results.prisma.map((r) => r.cpu)) },
      { name: 'pg Pool, prepared statement', queriesPerSecond: mid(results.pg.map((r) => r.qps)), cpuMicrosPerQuery: mid(results.pg.map((r) => r.cpu)) },
    ];
  } finally {
    await pool.end();
    await database.close();
  }
}
