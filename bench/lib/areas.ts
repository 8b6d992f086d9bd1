import type { CpuProfile } from './profile.ts';

// Self time of a V8 CPU profile of the dispatch board's process, grouped by the areas issue 10 names: GraphQL
// execution, Fieldline's resolvers, serialization (decimal formatting included), Prisma, the pg driver, native JSON,
// HTTP and the bench's own client. Idle time and the profiler itself are left out.

interface Node {
  id: number;
  callFrame: { functionName: string; url: string };
}

export const AREAS = [
  'GraphQL execution (graphql-js, yoga, envelop, pothos, dataloader)',
  'Fieldline resolvers, meter and loaders (src/graphql)',
  'serialization to the wire shape (src/kernel record/fields, decimal.js)',
  'Fieldline services and kernel (other src/)',
  'Prisma (client, adapter)',
  'pg driver (protocol, row decoding)',
  'native JSON.stringify / JSON.parse',
  'HTTP server (node core, express)',
  'bench client (fetch/undici)',
  'garbage collector',
  'other (builtins, microtasks, natives)',
] as const;
export type Area = (typeof AREAS)[number];

const graphqlPackages = /^(graphql|graphql-yoga|graphql-jit|@graphql-tools\/.*|@graphql-yoga\/.*|@envelop\/.*|@pothos\/.*|dataloader|@whatwg-node\/.*|@repeaterjs\/.*)$/;
const pgPackages = /^(pg|pg-protocol|pg-types|pg-pool|postgres-array|postgres-date|postgres-bytea|postgres-interval|pg-int8|pg-cloudflare|pg-connection-string)$/;

function packageOf(path: string): string | null {
  const at = path.lastIndexOf('/node_modules/');
  if (at < 0) return null;
  const rest = path.slice(at + '/node_modules/'.length).split('/');
  return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
}

export function areaOf(frame: Node['callFrame']): Area | null {
  const { url, functionName: fn } = frame;
  if (!url) {
    if (fn === '(idle)') return null;
    if (fn === '(garbage collector)') return 'garbage collector';
    if (fn === 'stringify' || fn === 'parse') return 'native JSON.stringify / JSON.parse';
    return 'other (builtins, microtasks, natives)';
  }
  const path = decodeURIComponent(url.replace(/^file:\/\//, ''));
  if (path.startsWith('node:inspector') || path.endsWith('servers/control.ts')) return null;
  const pkg = packageOf(path);
  if (pkg) {
    if (pkg === 'decimal.js') return 'serialization to the wire shape (src/kernel record/fields, decimal.js)';
    if (graphqlPackages.test(pkg)) return 'GraphQL execution (graphql-js, yoga, envelop, pothos, dataloader)';
    if (pkg.startsWith('@prisma/') || pkg === 'prisma' || pkg === 'pglite-prisma-adapter') return 'Prisma (client, adapter)';
    if (pgPackages.test(pkg)) return 'pg driver (protocol, row decoding)';
    return 'HTTP server (node core, express)';
  }
  if (path.includes('/src/generated/')) return 'Prisma (client, adapter)';
  if (/\/src\/kernel\/(record-serialization|fields)\.ts$/.test(path)) return 'serialization to the wire shape (src/kernel record/fields, decimal.js)';
  if (path.includes('/src/graphql/')) return 'Fieldline resolvers, meter and loaders (src/graphql)';
  if (path.includes('/src/')) return 'Fieldline services and kernel (other src/)';
  if (path.includes('undici')) return 'bench client (fetch/undici)';
  if (path.includes('/bench/')) return 'bench client (fetch/undici)';
  if (path.startsWith('node:')) return 'HTTP server (node core, express)';
  return 'other (builtins, microtasks, natives)';
}

/** Sampled self time per area in µs (idle and the profiler excluded), and the top functions for a closer look. */
export function timeByArea(profile: CpuProfile): { areas: Map<Area, number>; total: number; functions: { name: string; micros: number }[] } {
  const byId = new Map((profile.nodes as Node[]).map((n) => [n.id, n]));
  const areas = new Map<Area, number>();
  const functions = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    if (!node) return;
    const area = areaOf(node.callFrame);
    if (!area) return;
    const dt = profile.timeDeltas[i] ?? 0;
    total += dt;
    areas.set(area, (areas.get(area) ?? 0) + dt);
    const where = node.callFrame.url ? node.callFrame.url.replace(/^.*\/(node_modules|src|bench)\//, '$1/') : '';
    const name = `${node.callFrame.functionName || '(anonymous)'} ${where}`;
    functions.set(name, (functions.get(name) ?? 0) + dt);
  });
  return { areas, total, functions: [...functions.entries()].map(([name, micros]) => ({ name, micros })).sort((a, b) => b.micros - a.micros) };
}
