import type { Logger } from 'pino';

// The outbox readers (the webhook dispatcher, the subscription tail) are woken by NOTIFY and a poll, often many
// times while they read. A CatchUp runs one reading at a time: a wake during a run makes it read again when it
// ends, and each run reads batch after batch until one comes back short (caught up).

export class CatchUp {
  private running: Promise<void> | null = null;
  private again = false;

  /**
   * `step` reads one batch and answers how many rows it read (null: another process holds the cursor); a run
   * reads until a step answers less than `batch`. A failure is logged as `what failed`; the next wake retries.
   */
  constructor(
    private readonly step: () => Promise<number | null>,
    private readonly batch: number,
    private readonly logger: Logger,
    private readonly what: string,
  ) {}

  wake(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          while ((await this.step()) === this.batch);
        } while (this.again);
      } catch (error) {
        this.logger.warn({ err: error instanceof Error ? error.message : String(error) }, `${this.what} failed`);
      } finally {
        this.running = null;
      }
    })();
  }

  /** Resolves when the current run, if any, has ended. */
  async idle(): Promise<void> {
    await this.running;
  }
}
