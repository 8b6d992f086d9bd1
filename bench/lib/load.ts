import autocannon from 'autocannon';
import { quantile } from './stats.ts';
import type { Target } from './http.ts';

export interface ClosedLoopResult {
  /** 2xx responses per second over the run. */
  rps: number;
  /** 2xx responses. */
  requests: number;
  non2xx: number;
  errors: number;
  /** Latencies under saturation (informative only; the open loop gives the latency figures). */
  p50: number;
  p99: number;
}

/**
 * Closed loop: `connections` keep-alive connections, each sending its next request as soon as the previous answer
 * arrives — the maximum throughput the server sustains. Latencies come from autocannon's per-response event (float ms)
 * rather than its integer-millisecond histogram.
 */
export async function closedLoop(target: Target, path: string, connections: number, seconds: number, overallRate?: number): Promise<ClosedLoopResult> {
  const latencies: number[] = [];
  const instance = autocannon({
    url: `http://${target.host}:${target.port}${path}`,
    connections,
    duration: seconds,
    headers: target.headers,
    timeout: 30,
    ...(overallRate ? { overallRate } : {}),
  });
  instance.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
    if (statusCode === 200) latencies.push(responseTimeMs);
  });
  const result = await instance;
  return {
    rps: result['2xx'] / result.duration,
    requests: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
  };
}
