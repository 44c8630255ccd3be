import {
  type AnswerHead,
  BodyQueue,
  type BodySink,
  bodyText,
  type CancelSignal,
  classifyTransportFailure,
  type Exchange,
  exchange,
  firstHeader,
  isAbort,
} from '@switchboard/http';
import {
  AppError,
  errorBodySchema,
  invalidRequest,
  isRetryableStatus,
  scrubSecrets,
  upstreamError,
  upstreamTimeout,
} from '@switchboard/protocol';
import type { Dispatcher, FormData } from 'undici';
import { retryDelayMs, sleep } from './retry.js';
import type { UpstreamPool } from './upstream-pool.js';

/**
 * The HTTP side of talking to an upstream: one keep-alive connection pool per provider, and the
 * single place where transport failures and upstream statuses become client-facing errors.
 */
export interface UpstreamTarget {
  /** Provider name, used in error messages. */
  name: string;
  /** The longest wait for the response headers, and for each body chunk after them. */
  timeoutMs: number;
  /** Retries on connection errors, 408, 429 and 5xx. */
  maxRetries: number;
  /** Values to cut out of any upstream text shown to a client. */
  secrets: readonly string[];
  /** A provider's own reading of an error answer (Azure's content filter…); undefined: statusError's. */
  mapError?: (status: number, text: string, retryAfter: string | undefined) => AppError | undefined;
  /** Told before each retry (metrics). */
  onRetry?: () => void;
}

export interface PostOptions {
  pool: UpstreamPool;
  url: string;
  headers: Record<string, string>;
  signal: CancelSignal;
}

export interface PostJsonOptions extends PostOptions {
  body: unknown;
}

/** The most of a 2xx answer read as text; past it the call fails (an answer must never exhaust memory). */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;
/** The most of a refusal's (non-2xx) body read for its message; past it the message goes without. */
const MAX_REFUSAL_BYTES = 64 * 1024;
/** The most of a 2xx answer that is not an event stream read before its connection is closed (undici's `dump()`'s). */
const MAX_DUMPED_BYTES = 128 * 1024;

/**
 * POSTs JSON and reads the 2xx answer as JSON (502 `upstream_invalid_response` when it is not).
 * Each attempt is one `exchange` on the pool's agent (see `send`), the answer read straight from
 * undici's parser into text: no Readable, no AbortSignal of its own.
 */
export async function postForJson(target: UpstreamTarget, options: PostJsonOptions): Promise<unknown> {
  const body = JSON.stringify(options.body);
  const text = await answerText(
    target,
    await send(target, { ...options, headers: jsonHeaders(options.headers) }, () => body, textSink),
  );
  try {
    return JSON.parse(text);
  } catch {
    throw upstreamError(`Upstream '${target.name}' returned a body that is not JSON.`, 'upstream_invalid_response');
  }
}

/**
 * POSTs multipart/form-data (undici streams it, the boundary in its Content-Type) and reads the
 * 2xx answer as text, with `postForJson`'s retries, time-outs and errors. `form` is called once
 * per attempt, since a sent body is spent; its file parts should be Blobs that can be read again
 * (`fs.openAsBlob`: from disk each time).
 */
export async function postFormForText(target: UpstreamTarget, options: PostOptions & { form: () => FormData }): Promise<string> {
  const headers = { accept: 'application/json, text/plain', ...options.headers };
  return answerText(target, await send(target, { ...options, headers }, options.form, textSink));
}

/** A 2xx answer's body as text, at most MAX_ANSWER_BYTES. */
const textSink = () =>
  bodyText(MAX_ANSWER_BYTES, {
    tooLarge: () => upstreamError('The upstream response is too large.', 'upstream_invalid_response'),
  });

/** The text `textSink` read (not async: the caller's await is the one wait); a failure reading it mapped as `transportError` does. */
function answerText(target: UpstreamTarget, exchange: Exchange<unknown>): Promise<string> {
  return (exchange.done as Promise<string>).catch((err: unknown) => {
    throw transportError(target, err);
  });
}

const jsonHeaders = (headers: Record<string, string>) => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  ...headers,
});

/**
 * POSTs JSON asking for an event stream, and returns its body as a `BodyQueue` once a 2xx status
 * and `text/event-stream` headers are in (any other 2xx: 502 `upstream_invalid_response`). The
 * queue's reader must read it to its end, or `stop()` it.
 */
export async function postForStream(target: UpstreamTarget, options: PostJsonOptions): Promise<BodyQueue> {
  let queue = undefined as BodyQueue | undefined; // set by the callback
  const body = JSON.stringify(options.body);
  const json = { ...options, headers: jsonHeaders(options.headers) };
  const exchange = await send(
    target,
    json,
    () => body,
    (head, exchange): BodySink<unknown> => {
      if (String(head.headers['content-type'] ?? '').includes('text/event-stream')) {
        queue = new BodyQueue(exchange);
        return queue;
      }
      queue = undefined;
      let size = 0;
      return {
        data: (chunk) => {
          size += chunk.length;
          return size > MAX_DUMPED_BYTES;
        },
        end: () => undefined,
      };
    },
  );
  if (queue) return queue;
  await exchange.done.catch(() => {}); // read (or cut) before the answer is refused: the connection stays usable
  throw upstreamError(`Upstream '${target.name}' did not answer with an event stream.`, 'upstream_invalid_response');
}

/** One attempt's answer: a 2xx being read into the sink `accept` chose, or a refusal and its text. */
type Outcome = { exchange: Exchange<unknown> } | { refused: AnswerHead; text: string };

/**
 * POSTs `body()` (called once per attempt) and resolves once a 2xx status and headers are in, the body going
 * to `accept`'s sink; otherwise throws. Connection errors, 408, 429 and 5xx are retried up to
 * `maxRetries` times — always before any byte has reached the client, since nothing is returned
 * until the upstream said yes. Each attempt's `exchange` carries the guard: `timeoutMs` for the
 * head and for each chunk while the body is waited for (one timer, no AbortController), and the
 * client's signal (one 'abort' listener, removed once the exchange is settled); undici's
 * `headersTimeout`/`bodyTimeout` stay as backstops.
 */
async function send(
  target: UpstreamTarget,
  options: PostOptions,
  body: () => string | FormData,
  accept: (head: AnswerHead, exchange: Exchange<unknown>) => BodySink<unknown>,
): Promise<Exchange<unknown>> {
  const address = options.pool.address(options.url);
  for (let attempt = 0; ; attempt++) {
    const retriesLeft = attempt < target.maxRetries;
    const request: Dispatcher.DispatchOptions = {
      origin: address.origin,
      path: address.path,
      method: 'POST',
      headers: options.headers,
      body: body(),
      headersTimeout: target.timeoutMs,
      bodyTimeout: target.timeoutMs,
    };
    let outcome: Outcome;
    try {
      outcome = await sendOnce(target, options, request, accept);
    } catch (err) {
      const error = transportError(target, err);
      const retryable = error instanceof AppError && error.code === 'upstream_unreachable';
      const delay = retryable && retriesLeft ? retryDelayMs(attempt, undefined) : null;
      if (delay === null) throw error;
      await sleep(delay, options.signal);
      target.onRetry?.();
      continue;
    }
    if ('exchange' in outcome) return outcome.exchange;
    const { refused, text } = outcome;
    const retryAfter = firstHeader(refused.headers, 'retry-after');
    const delay = isRetryableStatus(refused.statusCode) && retriesLeft ? retryDelayMs(attempt, retryAfter) : null;
    if (delay === null)
      throw target.mapError?.(refused.statusCode, text, retryAfter) ?? statusError(target, refused.statusCode, text, retryAfter);
    await sleep(delay, options.signal);
    target.onRetry?.();
  }
}

/** One attempt: a failure before the head rejects (for `send` to map and maybe retry); a refusal's text is '' when it could not be read. */
function sendOnce(
  target: UpstreamTarget,
  options: PostOptions,
  request: Dispatcher.DispatchOptions,
  accept: (head: AnswerHead, exchange: Exchange<unknown>) => BodySink<unknown>,
): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    let refused: AnswerHead | undefined;
    let answered = false;
    const read = (head: AnswerHead, exchange: Exchange<unknown>): BodySink<unknown> => {
      if (head.statusCode >= 200 && head.statusCode < 300) {
        const sink = accept(head, exchange); // a throw fails the exchange before the head counts as answered
        answered = true;
        resolve({ exchange });
        return sink;
      }
      answered = true;
      refused = head;
      return bodyText(MAX_REFUSAL_BYTES);
    };
    const guard = { ms: target.timeoutMs, timedOut: () => timedOut(target), signal: options.signal };
    exchange(options.pool.agent, request, read, guard).done.then(
      (text) => {
        if (refused) resolve({ refused, text: text as string });
      },
      (err: unknown) => {
        if (refused) resolve({ refused, text: '' });
        else if (!answered) reject(err);
        // else: a 2xx body's failure, the reader's to hear on `exchange.done`
      },
    );
  });
}

function timedOut(target: UpstreamTarget) {
  return upstreamTimeout(`Upstream '${target.name}' did not answer within ${target.timeoutMs} ms.`);
}

/** Turns a failure while sending or reading into a 502/504 (or passes an abort through). */
export function transportError(target: UpstreamTarget, err: unknown): unknown {
  if (err instanceof AppError) return err;
  const failure = classifyTransportFailure(err);
  switch (failure.kind) {
    case 'aborted':
      return err;
    case 'timeout':
      return timedOut(target);
    case 'connect-timeout':
      return upstreamTimeout(`Upstream '${target.name}' could not be reached in time.`, err);
    case 'unreachable':
      return upstreamError(`Upstream '${target.name}' could not be reached (${failure.code}).`, 'upstream_unreachable', err);
  }
}

/** A failure while reading a stream that had begun: the stream is broken, not unreachable. */
export function streamError(target: UpstreamTarget, err: unknown): unknown {
  if (err instanceof AppError) return scrubbed(err, target.secrets);
  const failure = classifyTransportFailure(err);
  if (failure.kind === 'aborted') return err;
  if (failure.kind === 'timeout') return transportError(target, err);
  return upstreamError(`Upstream '${target.name}' broke off the stream (${failure.code}).`, 'upstream_stream_broken', err);
}

export { isAbort };

/** Maps an upstream's non-2xx answer to what our client sees, in one place. */
export function statusError(target: UpstreamTarget, status: number, text: string, retryAfter?: string): AppError {
  // Scrub before extractMessage cuts the text short: a key straddling the cut would survive.
  const upstreamMessage = extractMessage(scrubSecrets(text, target.secrets));
  const who = `Upstream '${target.name}'`;
  if (status === 400 || status === 413 || status === 422) {
    return invalidRequest(`${who} rejected the request: ${upstreamMessage || `status ${status}`}`, null, 'upstream_bad_request');
  }
  if (status === 401 || status === 403) {
    return upstreamError(`${who} refused the gateway's credentials (status ${status}).`, 'upstream_auth_failed');
  }
  if (status === 429) {
    const headers: Record<string, string> = {};
    if (retryAfter) headers['Retry-After'] = retryAfter;
    return new AppError(`${who} is rate limiting requests${upstreamMessage ? `: ${upstreamMessage}` : '.'}`, {
      status: 429,
      type: 'rate_limit_error',
      code: 'upstream_rate_limited',
      headers,
    });
  }
  if (status === 408 || status === 504) return upstreamTimeout(`${who} timed out (status ${status}).`);
  const failed = upstreamError(`${who} failed with status ${status}${upstreamMessage ? `: ${upstreamMessage}` : '.'}`);
  // A 503 that says when to come back: the client (and the worker's back-off) should wait that long.
  if (status === 503 && retryAfter) failed.headers['Retry-After'] = retryAfter;
  return failed;
}

function extractMessage(text: string): string {
  if (!text) return '';
  try {
    const parsed = errorBodySchema.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data.error.message.slice(0, 500);
  } catch {
    // not JSON: fall through to the raw text
  }
  return text.replace(/\s+/g, ' ').trim().slice(0, 200);
}

/** The same error with the upstream's words scrubbed of secrets and cut to a readable length. */
function scrubbed(err: AppError, secrets: readonly string[]): AppError {
  const message = scrubSecrets(err.message, secrets);
  if (message === err.message && message.length <= 600) return err;
  return new AppError(message.length > 600 ? `${message.slice(0, 600)}…` : message, {
    status: err.status,
    type: err.type,
    code: err.code,
    param: err.param,
    headers: err.headers,
    cause: err.cause,
  });
}
