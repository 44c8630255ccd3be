/** What becomes of a batch whose write failed (Redis away, or a refused command). */
export type OnWriteFailure<B> =
  /** Its entries are lost; the promise of its write rejects. */
  | 'drop'
  /** `keep(failed, gathering)` puts its entries back into the batch being gathered, written with it. */
  | { keep(failed: B, gathering: B): void };

export interface BatchedWriterOptions<B> {
  /** An empty batch (a Map, a few Maps): what entries are gathered in. */
  open(): B;
  /** Writes one batch in one round trip (a MULTI); settles once Redis took it or refused it. */
  write(batch: B): Promise<unknown>;
  /** What becomes of a batch whose write failed. */
  onFailure: OnWriteFailure<B>;
  /**
   * How long a batch gathers entries, from its first, before it is written.
   * @defaultValue 1_000
   */
  flushMs?: number;
  /**
   * How long `close()` waits for the last write (Redis may be away, the command never answered).
   * @defaultValue 1_000
   */
  closeWithinMs?: number;
}

interface Waiting {
  promise: Promise<void>;
  resolve(): void;
  reject(err: unknown): void;
}

const nothingToWrite = Promise.resolve();
/** A timer's write fails quietly: a kept batch is tried again, a dropped one's `written` says why. */
const quietly = () => {};

/**
 * Gathers entries in a batch of the caller's shape and writes the batch in one round trip, so a
 * call on a hot path costs a map update, not a Redis command. A batch is written `flushMs` after
 * its first entry, at the end of the event-loop turn once `soon()` is asked (a caller whose next
 * call must see this write), on `flush()`, and on `close()` (bounded by `closeWithinMs`).
 *
 * Writes do not wait for each other: a new batch gathers while the last one is being written, and
 * the connection keeps their order. A failed write is dropped or kept, as `onFailure` says; a kept
 * batch goes back into the one being gathered (opened for it, so its timer retries it) and is
 * written with it. Active sessions and channel counts keep theirs; usage records are dropped (the
 * callers of `record` hear the failure). A write that fails after `close()` is not kept: the
 * process is stopping, and a retry would only fail again on its closed connection.
 */
export class BatchedWriter<B> {
  readonly #options: BatchedWriterOptions<B>;
  #gathering: B | undefined;
  /** The promise of the batch being gathered, made only once someone asks for it (`written`). */
  #waiting: Waiting | undefined;
  #timer: NodeJS.Timeout | undefined;
  #immediate: NodeJS.Immediate | undefined;
  #closed = false;
  /** Bound once: the timers take it as it is, no closure per batch. */
  readonly #flushLater = (): void => void this.flush().catch(quietly);

  constructor(options: BatchedWriterOptions<B>) {
    this.#options = options;
  }

  /** The batch being gathered, opened (and its timer started) by the first entry. */
  get batch(): B {
    return this.#gathering ?? this.#open();
  }

  /** Settles once the batch being gathered is written: rejects when its write failed. */
  get written(): Promise<void> {
    if (this.#gathering === undefined) this.#open();
    if (this.#waiting === undefined) {
      let settle!: Pick<Waiting, 'resolve' | 'reject'>;
      const promise = new Promise<void>((resolve, reject) => {
        settle = { resolve, reject };
      });
      this.#waiting = { promise, ...settle };
    }
    return this.#waiting.promise;
  }

  /** Writes the batch being gathered at the end of this event-loop turn, not at its timer. */
  soon(): void {
    if (this.#immediate === undefined && this.#gathering !== undefined) this.#immediate = setImmediate(this.#flushLater);
  }

  /** Writes what is gathered now; settles with that write (at once when nothing is gathered). */
  flush(): Promise<void> {
    const batch = this.#take();
    if (batch === undefined) return nothingToWrite;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    return this.#write(batch).then(
      () => waiting?.resolve(),
      (err: unknown) => {
        const { onFailure } = this.#options;
        if (onFailure !== 'drop' && !this.#closed) onFailure.keep(batch, this.batch);
        waiting?.reject(err);
        throw err;
      },
    );
  }

  /**
   * Hands what is gathered (undefined when nothing is) to `write`, a write of the caller's own
   * that carries other commands with it; its promise settles the batch's `written`. The entries
   * are the caller's now: not kept if that write fails, whatever `onFailure` says.
   */
  writeWith<T>(write: (batch: B | undefined) => Promise<T>): Promise<T> {
    const batch = this.#take();
    const waiting = this.#waiting;
    this.#waiting = undefined;
    let result: Promise<T>;
    try {
      result = write(batch);
    } catch (err) {
      result = Promise.reject(err);
    }
    if (waiting) result.then(waiting.resolve, waiting.reject);
    return result;
  }

  /**
   * Writes what is gathered and settles with that write, or after `closeWithinMs` when Redis does
   * not answer. Entries gathered after it are still written by their timer.
   */
  async close(): Promise<void> {
    this.#closed = true;
    let bound: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.flush(),
        new Promise<void>((resolve) => {
          bound = setTimeout(resolve, this.#options.closeWithinMs ?? 1_000);
        }),
      ]);
    } finally {
      clearTimeout(bound);
    }
  }

  #open(): B {
    const batch = this.#options.open();
    this.#gathering = batch;
    this.#timer = setTimeout(this.#flushLater, this.#options.flushMs ?? 1_000);
    this.#timer.unref();
    return batch;
  }

  /** Takes the batch being gathered out, stopping its timers. */
  #take(): B | undefined {
    const batch = this.#gathering;
    if (batch === undefined) return undefined;
    this.#gathering = undefined;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#immediate !== undefined) {
      clearImmediate(this.#immediate);
      this.#immediate = undefined;
    }
    return batch;
  }

  #write(batch: B): Promise<unknown> {
    try {
      return this.#options.write(batch);
    } catch (err) {
      return Promise.reject(err);
    }
  }
}
