/**
 * Time-outs that fire on time. undici's `headersTimeout` and `bodyTimeout` run on a coarse clock
 * (about one second), so a 300 ms time-out fires after about a second and a 500 ms silence in a
 * body is never noticed; these use a timer of their own (as does `exchange`'s guard).
 */

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
