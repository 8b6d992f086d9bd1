import { readFileSync } from 'node:fs';
import os from 'node:os';

// How much of the machine something other than the bench used during a run: total busy CPU (/proc/stat) minus the
// CPU of the bench's own processes (this one, its server children, and the PostgreSQL backends serving its
// database). Linux only; elsewhere it reports null.

const TICKS_PER_SECOND = 100; // USER_HZ

function busyTicks(): number | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
    const [, user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).map(Number);
    return user + nice + system + irq + softirq + steal;
  } catch {
    return null;
  }
}

function processTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]); // utime, stime
  } catch {
    return 0;
  }
}

export interface Window {
  /** Share of the machine's CPU (0..1) used by processes other than the bench's during the window. */
  end(): number | null;
}

export function startWindow(ownPids: number[]): Window {
  const started = performance.now();
  const busy = busyTicks();
  const own = new Map(ownPids.map((pid) => [pid, processTicks(pid)]));
  return {
    end() {
      const busyNow = busyTicks();
      if (busy === null || busyNow === null) return null;
      let ownDelta = 0;
      for (const [pid, before] of own) ownDelta += Math.max(0, processTicks(pid) - before);
      const capacity = ((performance.now() - started) / 1000) * TICKS_PER_SECOND * os.cpus().length;
      return Math.max(0, (busyNow - busy - ownDelta) / capacity);
    },
  };
}

/**
 * Waits (up to maxMs) until other processes used less than `threshold` of the machine over a 1 s window, so a run
 * does not start in the middle of someone else's burst. Returns the milliseconds waited.
 */
export async function waitForQuiet(ownPids: () => Promise<number[]>, maxMs: number, threshold = 0.1): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < maxMs) {
    const window = startWindow(await ownPids());
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const other = window.end();
    if (other === null || other < threshold) break;
  }
  return performance.now() - started;
}

/** The machine's load averages (1, 5, 15 minutes), as the benches print them. */
export function loadAverage(): string {
  return os.loadavg().map((l) => l.toFixed(2)).join(' ');
}

/**
 * The closing line every bench prints about the machine: the load averages before and after, the largest share of
 * the machine other processes took during a measured run, and, above 10%, which figures that makes unreliable.
 */
export function loadReport(loadBefore: string, disturbed: number, unreliable: string, loadAfter = loadAverage()): string {
  const warning = disturbed > 0.1 ? ` — WARNING: the runs were disturbed by other work; ${unreliable}` : '';
  return `machine load average: ${loadBefore} before, ${loadAfter} after; other processes took up to ${Math.round(disturbed * 100)}% of the machine during a run${warning}`;
}
