/** A line to log, decided by `OutageLog`. */
export interface OutageLine {
  level: 'warn' | 'info';
  message: string;
  meta: Record<string, unknown>;
}

/**
 * What to say about a Redis outage, decided from its events alone (pure, so the throttling can be
 * tested with a clock of its own): the first failure is logged at once, later ones at most once
 * per `repeatMs` with how many there were since the last line, and the recovery once, with how
 * long Redis was away. A reconnecting client fails every few hundred milliseconds; without this
 * an outage wrote a line for each.
 */
export class OutageLog {
  #since: number | null = null;
  #lastLine = 0;
  #unreported = 0;
  #total = 0;

  /** @param repeatMs - The least time between two lines of one outage. @defaultValue 60000 */
  constructor(private readonly repeatMs = 60_000) {}

  get down(): boolean {
    return this.#since !== null;
  }

  failed(error: string, now = Date.now()): OutageLine | null {
    this.#total++;
    if (this.#since === null) {
      this.#since = this.#lastLine = now;
      this.#unreported = 0;
      return { level: 'warn', message: 'redis unavailable', meta: { error } };
    }
    this.#unreported++;
    if (now - this.#lastLine < this.repeatMs) return null;
    const line: OutageLine = {
      level: 'warn',
      message: 'redis still unavailable',
      meta: { error, failures: this.#unreported, down_seconds: seconds(now - this.#since) },
    };
    this.#lastLine = now;
    this.#unreported = 0;
    return line;
  }

  recovered(now = Date.now()): OutageLine | null {
    if (this.#since === null) return null;
    const line: OutageLine = {
      level: 'info',
      message: 'redis is back',
      meta: { down_seconds: seconds(now - this.#since), failures: this.#total },
    };
    this.#since = null;
    this.#total = 0;
    return line;
  }
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;
