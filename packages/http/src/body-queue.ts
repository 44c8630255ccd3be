import type { BodySink, Exchange } from './exchange.js';

/** What a reader stopped early closes the exchange with: nobody hears it (the reader is gone). */
const stopped = () => new Error('the reader stopped before the end of the answer');

/**
 * A streamed answer's body for a reader that pulls: the exchange's sink, fed from undici's
 * parser, and `next()`, which hands over what came since the last call (several network reads in
 * one buffer when they piled up) at once, or a promise only when it has to wait. No Readable
 * between the parser and the reader. Back-pressure: past `highWater` bytes not taken, the
 * exchange is paused (undici stops reading the socket) until the reader takes them. Silence
 * counts only while the reader waits (`Exchange.watch`): the guard's timer then fails the
 * exchange, and with it the wait. Any failure of the exchange (a broken connection, the time-out,
 * the client's abort) fails the next wait with its error. Whoever opened the exchange handles a
 * rejection of its `done`; the queue hears of it through `failed`.
 */
export class BodyQueue implements BodySink<void> {
  readonly #exchange: Exchange<unknown>;
  readonly #highWater: number;
  #parts: Buffer[] = [];
  #size = 0;
  #paused = false;
  #ended = false;
  #failure: { error: unknown } | undefined;
  #wake: (() => void) | undefined;

  /** @defaultValue highWater 64 KiB, a Readable's own. */
  constructor(exchange: Exchange<unknown>, highWater = 64 * 1024) {
    this.#exchange = exchange;
    this.#highWater = highWater;
    exchange.watch(false); // nobody waits until the reader asks
  }

  data(chunk: Buffer): undefined {
    this.#parts.push(chunk);
    this.#size += chunk.length;
    if (this.#wake) this.#wake();
    else if (this.#size >= this.#highWater && !this.#paused) {
      this.#paused = true;
      this.#exchange.pause();
    }
    return undefined;
  }

  end(): void {
    this.#ended = true;
    this.#wake?.();
  }

  failed(error: unknown): void {
    this.#failure ??= { error };
    this.#wake?.();
  }

  /** What came since the last call, null at the end, or a promise of that; throws the exchange's failure. */
  next(): Buffer | null | Promise<Buffer | null> {
    const now = this.#take();
    if (now !== undefined) return now;
    return new Promise((resolve, reject) => {
      this.#exchange.watch(true);
      this.#wake = () => {
        let piece: Buffer | null | undefined;
        try {
          piece = this.#take();
        } catch (err) {
          this.#wake = undefined;
          reject(err);
          return;
        }
        if (piece === undefined) return;
        this.#wake = undefined;
        this.#exchange.watch(false);
        resolve(piece);
      };
    });
  }

  /** Done reading: before the end, the exchange is aborted and its connection closed. */
  stop(): void {
    this.#wake = undefined;
    if (!this.#ended) this.#exchange.abort(stopped());
  }

  #take(): Buffer | null | undefined {
    if (this.#size > 0) {
      const parts = this.#parts;
      this.#parts = [];
      this.#size = 0;
      if (this.#paused) {
        this.#paused = false;
        this.#exchange.resume(); // may feed `data` again at once: the taken parts are out of the way
      }
      return parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
    }
    if (this.#failure) throw this.#failure.error;
    if (this.#ended) return null;
    return undefined;
  }
}
