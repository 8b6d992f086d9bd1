// Self time of a V8 CPU profile (inspector Profiler.stop) grouped by where the code lives: an npm package, a file
// under src/, node's own internals, native calls (e.g. (writev): the socket syscalls) or V8 pseudo frames.

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function groupOf(node: ProfileNode): string {
  const url = node.callFrame.url;
  const fn = node.callFrame.functionName;
  if (!url) return fn.startsWith('(') ? fn : `(${fn || 'anonymous'})`;
  const path = decodeURIComponent(url.replace(/^file:\/\//, ''));
  const modules = path.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const rest = path.slice(modules + '/node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const src = path.indexOf('/src/');
  if (src >= 0) return path.slice(src + 1);
  if (path.startsWith('node:')) return path.includes('/') ? `node:${path.slice(5).split('/')[0]}` : path;
  return path;
}

export const PROFILER = 'the profiler itself';

/** Coarse buckets for the side-by-side summary. */
export function categoryOf(group: string): string {
  if (group === 'node:inspector' || group.endsWith('servers/control.ts')) return PROFILER;
  if (group.startsWith('@prisma/') || group === 'prisma' || group === '.prisma') return 'Prisma (client, engine glue, adapter-pg, debug)';
  if (['pg', 'pg-protocol', 'pg-types', 'pg-pool', 'postgres-array', 'postgres-date', 'postgres-bytea', 'postgres-interval', 'pg-int8'].includes(group)) return 'pg driver';
  if (['express', 'router', 'body-parser', 'finalhandler', 'send', 'path-to-regexp', 'content-type', 'accepts', 'negotiator', 'type-is', 'mime-types', 'qs', 'encodeurl', 'escape-html', 'parseurl', 'cookie', 'vary', 'on-finished', 'statuses', 'debug', 'depd', 'setprototypeof', 'merge-descriptors', 'http-errors', 'range-parser', 'fresh', 'etag', 'media-typer', 'content-disposition', 'proxy-addr', 'forwarded', 'ipaddr.js', 'utils-merge', 'methods'].includes(group)) return 'express and its dependencies';
  if (group === 'rate-limiter-flexible') return 'rate-limiter-flexible';
  if (group.startsWith('src/')) return 'Fieldline src/';
  if (group.startsWith('node:')) return 'node core (http, net, streams, events, crypto, url)';
  if (group === '(garbage collector)') return 'garbage collector';
  if (/^\((writev|write|read|writeUtf8String|writeBuffer|writeLatin1String|writev_|uv_)/.test(group)) return 'socket syscalls (native)';
  if (group.startsWith('(')) return 'other native / builtins';
  return `other: ${group}`;
}

export interface GroupTime {
  group: string;
  micros: number;
}

/** Self time per group, idle excluded. */
export function selfTimeByGroup(profile: CpuProfile): GroupTime[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const totals = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    if (!node) return;
    const group = groupOf(node);
    if (group === '(idle)') return;
    totals.set(group, (totals.get(group) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  return [...totals.entries()].map(([group, micros]) => ({ group, micros })).sort((a, b) => b.micros - a.micros);
}
