import type { Readable } from 'node:stream';

/** A listener for an error nobody waits for any more (undici fails a body destroyed before its end with 'aborted'). */
export const ignore = () => {};

/**
 * The chunks of a Node Readable body (undici's), pulled one read at a time without an async
 * iterator: `next()` hands over what is buffered at once and returns a promise only when it has
 * to wait. A Readable's async iterator costs every read its own promises (the generator's, the
 * wait's) and end-of-stream bookkeeping; a streamed answer makes one read per network read.
 * Paused mode (`'readable'` and `read()`), as the iterator: a reader that stops pulling holds the
 * upstream back. Each wait is under the silence watch: `ms` without a chunk while waiting, and
 * the body is destroyed with `onSilence()`, which fails the wait. One timer for the whole body,
 * restarted at each wait; the reader's own slowness does not count.
 */
export class BodyReader {
  readonly #body: Readable;
  readonly #timer: NodeJS.Timeout;
  #waiting = false;
  #ended = false;
  #failure: { error: unknown } | undefined;
  #wake: (() => void) | undefined;

  readonly #onReadable = () => this.#wake?.();
  readonly #onEnd = () => {
    this.#ended = true;
    this.#wake?.();
  };
  readonly #onError = (error: unknown) => {
    this.#failure ??= { error };
    this.#wake?.();
  };
  readonly #onClose = () => {
    // Closed with neither an end nor an error (destroyed without one): cut short, as the iterator says.
    if (!this.#ended) this.#failure ??= { error: prematureClose() };
    this.#wake?.();
  };

  constructor(body: Readable, ms: number, onSilence: () => Error) {
    this.#body = body;
    this.#timer = setTimeout(() => {
      if (this.#waiting) body.destroy(onSilence());
    }, ms);
    body.on('readable', this.#onReadable);
    body.on('end', this.#onEnd);
    body.on('error', this.#onError);
    body.on('close', this.#onClose);
    if (body.destroyed) this.#failure = { error: body.errored ?? prematureClose() }; // its 'close' was before us
  }

  /** What the body holds now (several network reads in one buffer when they piled up), null at its end, or a promise of that. */
  next(): Buffer | null | Promise<Buffer | null> {
    const now = this.#take();
    if (now !== undefined) return now;
    return new Promise((resolve, reject) => {
      this.#waiting = true;
      this.#timer.refresh();
      this.#wake = () => {
        let chunk: Buffer | null | undefined;
        try {
          chunk = this.#take();
        } catch (err) {
          this.#settled();
          reject(err);
          return;
        }
        if (chunk === undefined) return; // a 'readable' with nothing to read yet: wait on
        this.#settled();
        resolve(chunk);
      };
    });
  }

  /** Done reading (at the end, or given up): the timer stopped and the listeners gone, but one that keeps a later 'error' from being unheard. */
  stop(): void {
    clearTimeout(this.#timer);
    this.#wake = undefined;
    const body = this.#body;
    body.on('error', ignore); // undici fails a body destroyed before its end with an 'aborted' error
    body.off('readable', this.#onReadable);
    body.off('end', this.#onEnd);
    body.off('error', this.#onError);
    body.off('close', this.#onClose);
  }

  #settled(): void {
    this.#waiting = false;
    this.#wake = undefined;
  }

  /** A chunk, null at the end, undefined when there is nothing yet; throws the body's failure. */
  #take(): Buffer | null | undefined {
    if (this.#failure) throw this.#failure.error;
    const chunk = this.#body.read() as Buffer | null;
    if (chunk !== null) return chunk;
    if (this.#ended) return null;
    return undefined;
  }
}

/** What a body closed with neither an end nor an error fails with, as a Readable's async iterator says. */
export function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}
