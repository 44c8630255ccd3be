/**
 * What a call reads of its caller's AbortSignal: whether and why it was cancelled, and one
 * listener for the moment it is. An AbortSignal is one; so is `CancelSource`'s signal, which is
 * not an EventTarget and costs a /v1 request none of its set-up.
 */
export interface CancelSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * A cancellation without AbortController: the API makes one per /v1 request for the client's
 * hang-up. Node's AbortSignal is an EventTarget whose creation (a prototype set on a fresh
 * object, then V8 map transitions that are never cached) and `addEventListener` cost some 6 µs
 * of CPU per request in `perf` samples; this is a flag, a reason and a short array. Listeners
 * are called once, in the order added, at `cancel`; one that throws does not keep the others
 * from being called, and its error is thrown on the next tick as an EventTarget listener's would
 * be. A listener added twice is called once, as with `addEventListener`. `toAbortSignal` gives a
 * real AbortSignal where a library needs one.
 */
export class CancelSource implements CancelSignal {
  aborted = false;
  reason: unknown = undefined;
  #listeners: (() => void)[] | undefined;

  addEventListener(_type: 'abort', listener: () => void): void {
    if (this.aborted) return; // as an aborted AbortSignal: it never fires again
    const listeners = this.#listeners;
    if (!listeners) this.#listeners = [listener];
    else if (!listeners.includes(listener)) listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const listeners = this.#listeners;
    if (!listeners) return;
    const at = listeners.indexOf(listener);
    if (at !== -1) listeners.splice(at, 1);
  }

  /** Cancels once with `reason` (later calls do nothing) and calls the listeners. */
  cancel(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (!listeners) return;
    for (const listener of listeners) {
      try {
        listener();
      } catch (err) {
        process.nextTick(() => {
          throw err;
        });
      }
    }
  }
}

/** `signal` as an AbortSignal (itself when it is one), for a library that takes only those. */
export function toAbortSignal(signal: CancelSignal): AbortSignal {
  if (signal instanceof AbortSignal) return signal;
  if (signal.aborted) return AbortSignal.abort(signal.reason);
  const controller = new AbortController();
  signal.addEventListener('abort', () => controller.abort(signal.reason));
  return controller.signal;
}
