// IPC requests the bench sends to its server children: CPU time used so far, memory (after a full collection when
// asked and the child runs with --expose-gc), the peak RSS over a window (sampled in the child, so a short peak
// between two IPC requests is not missed), a heap snapshot written to a file, and (app only) a CPU profile window.
import { Session } from 'node:inspector/promises';
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';

let session: Session | null = null;
let rssWindow: { timer: NodeJS.Timeout; peak: number; samples: number } | null = null;

function sampleRss(): void {
  if (!rssWindow) return;
  rssWindow.peak = Math.max(rssWindow.peak, process.memoryUsage.rss());
  rssWindow.samples += 1;
}

export function answerControlMessages(): void {
  process.on('message', (message: { type?: string; action?: string; gc?: boolean; intervalMs?: number }) => {
    if (message.type === 'memory') {
      const gc = (globalThis as { gc?: () => void }).gc;
      if (message.gc && gc) gc();
      const spaces = Object.fromEntries(getHeapSpaceStatistics().filter((space) => space.space_size > 0).map((space) => [space.space_name, { size: space.space_size, used: space.space_used_size }]));
      process.send?.({ type: 'memory', collected: Boolean(message.gc && gc), ...process.memoryUsage(), spaces });
    } else if (message.type === 'rss-peak') {
      // {action: 'start', intervalMs?} starts sampling process.memoryUsage.rss() (default every 5 ms); {action:
      // 'stop'} ends the window. Both answer {type: 'rss-peak', rss (now), peak, samples} (the peak so far).
      if (message.action === 'start') {
        if (rssWindow) clearInterval(rssWindow.timer);
        const timer = setInterval(sampleRss, Math.max(1, message.intervalMs ?? 5));
        timer.unref();
        rssWindow = { timer, peak: 0, samples: 0 };
        sampleRss();
      } else sampleRss();
      const answer = { type: 'rss-peak', rss: process.memoryUsage.rss(), peak: rssWindow?.peak ?? 0, samples: rssWindow?.samples ?? 0 };
      if (message.action !== 'start' && rssWindow) {
        clearInterval(rssWindow.timer);
        rssWindow = null;
      }
      process.send?.(answer);
    } else if (message.type === 'heapsnapshot') {
      process.send?.({ type: 'heapsnapshot', path: writeHeapSnapshot((message as { path?: string }).path) });
    } else if (message.type === 'cpu') {
      const usage = process.cpuUsage();
      process.send?.({ type: 'cpu', micros: usage.user + usage.system });
    } else if (message.type === 'profile') {
      void (async () => {
        if (message.action === 'start') {
          session = new Session();
          session.connect();
          await session.post('Profiler.enable');
          await session.post('Profiler.setSamplingInterval', { interval: 200 });
          await session.post('Profiler.start');
          process.send?.({ type: 'profile' });
        } else if (session) {
          const { profile } = await session.post('Profiler.stop');
          session.disconnect();
          session = null;
          process.send?.({ type: 'profile', profile });
        }
      })();
    }
  });
}
