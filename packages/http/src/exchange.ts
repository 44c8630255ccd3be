import type { Dispatcher } from 'undici';
import type { CancelSignal } from './cancel-signal.js';

/** An answer's status and headers (names in lower case), as undici parsed them. */
export interface AnswerHead {
  statusCode: number;
  headers: Dispatcher.ResponseData['headers'];
}

/** A header of an answer as undici parsed it (`name` in lower case): its first value when it came more than once. */
export function firstHeader(headers: AnswerHead['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** What undici's `dispatch` takes of a URL: its origin, and its path with the query. */
export function dispatchTarget(url: URL): { origin: string; path: string } {
  return { origin: url.origin, path: `${url.pathname}${url.search}` };
}

/**
 * Takes an answer's body as it arrives; `end`'s value is the exchange's. A throw from `data` or
 * `end` fails the exchange and, before the end, aborts it (the connection is closed).
 */
export interface BodySink<T> {
  /** Returns true when it has all it wants: the exchange ends with `end()` now and its connection is closed. */
  data(chunk: Buffer): boolean | undefined;
  end(): T;
  /** The connection broke after the head: the exchange's value, or a throw. Unset: it fails with `error`. */
  broken?(error: Error): T;
  /** Told when the exchange fails after the head (aborted, timed out, broken, or a throw of the sink's): a reader waiting on it wakes. */
  failed?(error: unknown): void;
}

/** One HTTP request in flight: its value once its answer is read, and a way to give it up. */
export interface Exchange<T> {
  readonly done: Promise<T>;
  /** Fails `done` with `reason` at once and closes the request's connection (a no-op once settled). */
  abort(reason: Error): void;
  /** Stops undici reading the answer (back-pressure: the socket is not read) until `resume()`. Call it from the sink's `data`. */
  pause(): void;
  resume(): void;
  /**
   * Whether silence counts against the guard's time-out (from the start: the head and every chunk
   * are waited for). A reader that holds what it was given turns it off: its own slowness is not the upstream's.
   */
  watch(on: boolean): void;
}

/**
 * What an upstream call is held to, on the exchange itself: one timer and at most one listener,
 * no AbortController. Both end once the exchange is settled.
 */
export interface ExchangeGuard {
  /** No head within `ms` of the start, or `ms` without a chunk while watched: the exchange fails with `timedOut()`. */
  ms: number;
  timedOut: () => Error;
  /** Aborts the exchange with its reason. */
  signal?: CancelSignal | undefined;
}

/**
 * One request on undici's `dispatch` with a handler of its own: the body of the answer goes
 * straight from undici's parser to the sink `read` chose from the status and headers — no
 * Readable, no async iterator, no AbortSignal per request (undici's `request` builds all three,
 * a large part of what an MCP call cost its client).
 */
export function exchange<T>(
  agent: Dispatcher,
  request: Dispatcher.DispatchOptions,
  read: (head: AnswerHead, exchange: Exchange<T>) => BodySink<T>,
  guard?: ExchangeGuard,
): Exchange<T> {
  const handler = new ExchangeHandler(read, guard);
  try {
    agent.dispatch(request, handler);
  } catch (err) {
    handler.abort(err as Error);
  }
  return handler;
}

class ExchangeHandler<T> implements Dispatcher.DispatchHandler, Exchange<T> {
  readonly done: Promise<T>;
  #resolve!: (value: T) => void;
  #reject!: (error: unknown) => void;
  #settled = false;
  #controller: Dispatcher.DispatchController | null = null;
  /** Aborted before undici started the request: told to it when it starts. */
  #abortedWith: Error | null = null;
  #sink: BodySink<T> | null = null;
  readonly #read: (head: AnswerHead, exchange: Exchange<T>) => BodySink<T>;
  readonly #guard: ExchangeGuard | undefined;
  #timer: NodeJS.Timeout | undefined;
  #watching = true;
  readonly #onAbort = () => this.abort(this.#guard?.signal?.reason as Error);

  constructor(read: (head: AnswerHead, exchange: Exchange<T>) => BodySink<T>, guard: ExchangeGuard | undefined) {
    this.#read = read;
    this.#guard = guard;
    this.done = new Promise<T>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    if (!guard) return;
    this.#timer = setTimeout(() => {
      if (this.#watching) this.abort(guard.timedOut());
    }, guard.ms);
    const { signal } = guard;
    if (signal?.aborted) this.#onAbort();
    else signal?.addEventListener('abort', this.#onAbort, { once: true });
  }

  abort(reason: Error): void {
    if (this.#settled) return;
    this.#fail(reason);
  }

  pause(): void {
    this.#controller?.pause();
  }

  resume(): void {
    this.#controller?.resume();
  }

  watch(on: boolean): void {
    this.#watching = on;
    if (on) this.#timer?.refresh();
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#abortedWith) controller.abort(this.#abortedWith);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: AnswerHead['headers']): void {
    if (this.#settled || statusCode < 200) return;
    this.#timer?.refresh();
    try {
      this.#sink = this.#read({ statusCode, headers }, this);
    } catch (err) {
      this.#fail(err as Error);
    }
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#settled || !this.#sink) return;
    this.#timer?.refresh();
    let enough: boolean | undefined;
    try {
      enough = this.#sink.data(chunk);
    } catch (err) {
      this.#fail(err as Error);
      return;
    }
    if (!enough) return;
    this.onResponseEnd();
    this.#controller?.abort(new Error('the rest of the answer is not wanted'));
  }

  onResponseEnd(): void {
    if (this.#settled || !this.#sink) return;
    this.#settle();
    try {
      this.#resolve(this.#sink.end());
    } catch (err) {
      this.#failed(err);
    }
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.#settled) return;
    this.#settle();
    const sink = this.#sink;
    if (!sink?.broken) {
      this.#failed(error);
      return;
    }
    try {
      this.#resolve(sink.broken(error));
    } catch (err) {
      this.#failed(err);
    }
  }

  /** Settles with `error` and closes the connection (the rest of the answer is not wanted). */
  #fail(error: Error): void {
    this.#settle();
    this.#failed(error);
    if (this.#controller) this.#controller.abort(error);
    else this.#abortedWith = error;
  }

  #failed(error: unknown): void {
    this.#reject(error);
    this.#sink?.failed?.(error);
  }

  /** Settled: the guard's timer and listener end here. */
  #settle(): void {
    this.#settled = true;
    if (!this.#guard) return;
    clearTimeout(this.#timer);
    this.#guard.signal?.removeEventListener('abort', this.#onAbort);
  }
}

/** A sink that drops the body and ends with `value`. */
export function dropBody<T>(value: T): BodySink<T> {
  return { data: () => undefined, end: () => value };
}

/**
 * A sink that keeps the body as UTF-8 text, at most `limit` bytes. Past the limit the exchange
 * fails with `tooLarge`; or, with `truncate`, it ends with what came before the piece that went
 * past it (the connection closed, the rest not read), and a broken connection ends it with what
 * came before the break (an error answer's text is a courtesy) unless `keepOnBreak` is false (a
 * reply whose end matters: the break fails the exchange).
 */
export function bodyText(
  limit: number,
  options: { truncate?: boolean; keepOnBreak?: boolean; tooLarge?: () => Error } = {},
): BodySink<string> {
  const parts: Buffer[] = [];
  let size = 0;
  const text = () => (parts.length === 1 ? parts[0]!.toString('utf8') : Buffer.concat(parts).toString('utf8'));
  const sink: BodySink<string> = {
    data(chunk) {
      size += chunk.length;
      if (size <= limit) return void parts.push(chunk);
      if (options.truncate) return true;
      throw options.tooLarge?.() ?? new Error(`The response body is larger than ${limit} bytes.`);
    },
    end: text,
  };
  if (options.keepOnBreak ?? options.truncate) sink.broken = text;
  return sink;
}
