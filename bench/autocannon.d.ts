// Minimal typings for the parts of autocannon the benchmark uses (the package ships none).
declare module 'autocannon' {
  interface AutocannonOptions {
    url: string;
    connections?: number;
    duration?: number;
    pipelining?: number;
    overallRate?: number;
    headers?: Record<string, string>;
    timeout?: number;
  }
  interface HistogramSummary {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
  }
  interface AutocannonResult {
    requests: HistogramSummary;
    latency: HistogramSummary;
    throughput: HistogramSummary;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
  }
  interface AutocannonInstance extends Promise<AutocannonResult> {
    on(event: 'response', listener: (client: unknown, statusCode: number, bytes: number, responseTimeMs: number) => void): this;
    stop(): void;
  }
  function autocannon(options: AutocannonOptions): AutocannonInstance;
  export default autocannon;
}
