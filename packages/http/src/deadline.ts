/**
 * Time-outs that fire on time. undici's `headersTimeout` and `bodyTimeout` run on a coarse clock
 * (about one second), so a 300 ms time-out fires after about a second and a 500 ms silence in a
 * body is never noticed; these use a timer of their own.
 */

/**
 * An AbortSignal that fires after `ms`, or when `parent` fires (with its reason), unless
 * `clear()`ed first; `expired` tells the time-out from other aborts. Linked by hand rather than
 * with `AbortSignal.any`, whose weakly held dependants are bookkeeping a per-request signal does
 * not need.
 */
export class Deadline {
  readonly #controller = new AbortController();
  readonly #timer: NodeJS.Timeout;
  readonly #parent: AbortSignal | undefined;
  readonly #onParentAbort = () => this.#controller.abort(this.#parent?.reason);
  #expired = false;

  constructor(ms: number, parent?: AbortSignal) {
    this.#parent = parent;
    this.#timer = setTimeout(() => {
      this.#expired = true;
      this.#controller.abort(new DeadlineError(ms));
    }, ms);
    if (parent?.aborted) this.#onParentAbort();
    else parent?.addEventListener('abort', this.#onParentAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** True once the time ran out (whatever else happened to the request). */
  get expired(): boolean {
    return this.#expired;
  }

  /**
   * Stops the timer. The parent still fires the signal: a request whose headers are in keeps
   * reading its body under it, and a client that hangs up mid-stream must still cancel that.
   */
  clear(): void {
    clearTimeout(this.#timer);
  }

  /**
   * Done with the request (its body read or given up): stops the timer and lets go of the parent,
   * so calls made one after another under one parent (a tool loop's model calls under the
   * request's or job's signal) do not each leave a listener on it until it ends.
   */
  release(): void {
    this.clear();
    this.#parent?.removeEventListener('abort', this.#onParentAbort);
  }
}

/** The abort reason of a `Deadline`: never shown to a client, mapped by the caller. */
export class DeadlineError extends Error {
  override name = 'DeadlineError';
  constructor(readonly ms: number) {
    super(`no answer within ${ms} ms`);
  }
}

/** A response body: an async iterable that `destroy(err)` ends with `err` (a Node Readable). */
export interface DestroyableBody<T> extends AsyncIterable<T> {
  destroy(error?: Error): unknown;
}

/**
 * The silence watch of one body, for a reader that awaits its chunks itself: each chunk through
 * `next(chunks)`, `stop()` at the end. When `ms` pass while a chunk is awaited, the body is
 * destroyed with `onSilence()`, which fails that wait and leaves no connection half-read; the
 * reader's own slowness does not count. One timer for the whole body, restarted at each wait: a
 * chunk costs no timer of its own, and when it fires while the reader holds a chunk, that is not
 * silence (the next wait restarts it).
 */
export class IdleTimer {
  readonly #timer: NodeJS.Timeout;
  #waiting = false;
  readonly #received = () => {
    this.#waiting = false;
  };

  constructor(body: DestroyableBody<unknown>, ms: number, onSilence: () => Error) {
    this.#timer = setTimeout(() => {
      if (this.#waiting) body.destroy(onSilence());
    }, ms);
  }

  /**
   * The iterator's next chunk, awaited under the watch. Not async: the reader awaits the
   * iterator's own promise, and the watch ends (in a reaction registered before the reader's
   * await, so it runs first) once the chunk is in or the wait failed.
   */
  next<T>(chunks: AsyncIterator<T>): Promise<IteratorResult<T>> {
    this.#waiting = true;
    this.#timer.refresh();
    const next = chunks.next();
    next.then(this.#received, this.#received);
    return next;
  }

  stop(): void {
    clearTimeout(this.#timer);
  }
}
