/**
 * Hands a reply being written to its platform at a polite pace: the first text at once (the
 * moment it exists is the moment a user sees an answer begin), then at most one update per
 * `intervalMs`, never two at once — text that arrives meanwhile is gathered into the next one.
 * A failed update is reported and the next one tries again; the final text is the finish's job.
 */
export class PacedUpdates {
  #latest = '';
  #shown = '';
  #lastStart = 0;
  #inFlight: Promise<void> | null = null;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(
    private readonly update: (text: string) => Promise<void>,
    private readonly intervalMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** The reply so far (the whole text). */
  push(text: string): void {
    this.#latest = text;
    this.#schedule();
  }

  /** No more updates; the one in flight, if any, to wait for (null: none). */
  stop(): Promise<void> | null {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    return this.#inFlight;
  }

  #schedule(): void {
    if (this.#stopped || this.#inFlight || this.#timer || this.#latest === this.#shown) return;
    const wait = this.#lastStart === 0 ? 0 : this.#lastStart + this.intervalMs - Date.now();
    if (wait > 0) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#schedule();
      }, wait);
      return;
    }
    const text = this.#latest;
    this.#lastStart = Date.now();
    // One reaction for either outcome: the next update is scheduled once this one is over.
    this.#inFlight = this.update(text).then(
      () => {
        this.#shown = text;
        this.#over();
      },
      (err: unknown) => {
        try {
          this.onError(err);
        } finally {
          this.#over();
        }
      },
    );
  }

  #over(): void {
    this.#inFlight = null;
    this.#schedule();
  }
}
