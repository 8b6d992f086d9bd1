// Background workers (the webhook delivery queue is the first, in a later issue) register here; /readyz answers
// 503 while any of them says it is not running. A worker's name appears in the readiness detail, so it is a
// fixed word of the code (`webhooks`), never data.

/** Whether the worker is running now: true when it is, false (or a throw, or no answer in time) when not. */
export type WorkerCheck = () => boolean | Promise<boolean>;

const WORKER_NAME = /^[a-z][a-z0-9_.-]{0,62}$/;

export class WorkerRegistry {
  private readonly checks = new Map<string, WorkerCheck>();

  /**
   * Registers a worker /readyz requires to be running; returns the function that unregisters it (a worker that
   * stops on purpose, at shutdown). Names are unique: lower-case letters, digits, `_`, `.` or `-`.
   */
  register(name: string, check: WorkerCheck): () => void {
    if (!WORKER_NAME.test(name)) throw new Error(`worker name ${JSON.stringify(name)}: use lower-case letters, digits, _ . - (at most 63)`);
    if (this.checks.has(name)) throw new Error(`worker ${name} is already registered`);
    this.checks.set(name, check);
    return () => {
      if (this.checks.get(name) === check) this.checks.delete(name);
    };
  }

  /** The registered workers' names, in registration order. */
  names(): string[] {
    return [...this.checks.keys()];
  }

  /** The workers whose check did not say `true` within `timeoutMs` (a check that throws is not running). */
  async stopped(timeoutMs: number): Promise<string[]> {
    const results = await Promise.all(
      [...this.checks].map(async ([name, check]) => {
        const running = await withTimeout(Promise.resolve().then(check), timeoutMs).catch(() => false);
        return running === true ? null : name;
      }),
    );
    return results.filter((name): name is string => name !== null);
  }
}

export const TIMED_OUT = Symbol('timed out');

/** The work's result, or TIMED_OUT when it has not settled after `ms` (the work goes on; its outcome is ignored). */
export function withTimeout<T>(work: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const expiry = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), ms);
    timer.unref();
  });
  // race() subscribes to the work, so a rejection after the timeout is not an unhandled one.
  return Promise.race([work, expiry]).finally(() => clearTimeout(timer));
}
