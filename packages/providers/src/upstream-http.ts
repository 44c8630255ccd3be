import type { Readable } from 'node:stream';
import {
  BodyReader,
  BodyTooLargeError,
  classifyTransportFailure,
  Deadline,
  type DestroyableBody,
  firstHeader,
  isAbort,
  readBody,
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
  signal: AbortSignal;
}

export interface PostJsonOptions extends PostOptions {
  body: unknown;
}

/**
 * POSTs JSON and returns the response once a 2xx status and headers are in; otherwise throws.
 * Connection errors, 408, 429 and 5xx are retried up to `maxRetries` times — always before any
 * byte has reached the client, since nothing is returned until the upstream said yes.
 */
export function postJson(target: UpstreamTarget, options: PostJsonOptions): Promise<Dispatcher.ResponseData> {
  const body = JSON.stringify(options.body);
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...options.headers };
  return post(target, { ...options, headers }, () => body);
}

/**
 * POSTs multipart/form-data (undici streams it, the boundary in its Content-Type), as `postJson`
 * does JSON: same retries and errors. `form` is called once per attempt, since a sent body is spent;
 * its file parts should be Blobs that can be read again (`fs.openAsBlob`: from disk each time).
 */
export function postForm(
  target: UpstreamTarget,
  options: PostOptions & { form: () => FormData },
): Promise<Dispatcher.ResponseData> {
  const headers = { accept: 'application/json, text/plain', ...options.headers };
  return post(target, { ...options, headers }, options.form);
}

async function post(
  target: UpstreamTarget,
  options: PostOptions,
  body: () => string | FormData,
): Promise<Dispatcher.ResponseData> {
  const { headers } = options;
  for (let attempt = 0; ; attempt++) {
    const retriesLeft = attempt < target.maxRetries;
    let response: Dispatcher.ResponseData;
    const deadline = new Deadline(target.timeoutMs, options.signal);
    try {
      response = await options.pool.agent.request({
        ...options.pool.address(options.url),
        method: 'POST',
        headers,
        body: body(),
        signal: deadline.signal,
        // Backstops only: the deadline above and the body's IdleTimer fire on time, these do not.
        headersTimeout: target.timeoutMs,
        bodyTimeout: target.timeoutMs,
      });
    } catch (err) {
      deadline.release();
      const error = deadline.expired && !options.signal.aborted ? timedOut(target) : transportError(target, err);
      const retryable = error instanceof AppError && error.code === 'upstream_unreachable';
      const delay = retryable && retriesLeft ? retryDelayMs(attempt, undefined) : null;
      if (delay === null) throw error;
      await sleep(delay, options.signal);
      target.onRetry?.();
      continue;
    } finally {
      deadline.clear();
    }
    if (response.statusCode >= 200 && response.statusCode < 300) {
      response.body.once('close', () => deadline.release()); // read to its end, failed or cancelled
      return response;
    }
    const text = await readText(target, response.body, 64 * 1024).catch(() => '');
    deadline.release();
    const retryAfter = firstHeader(response.headers, 'retry-after');
    const delay = isRetryableStatus(response.statusCode) && retriesLeft ? retryDelayMs(attempt, retryAfter) : null;
    if (delay === null)
      throw (
        target.mapError?.(response.statusCode, text, retryAfter) ?? statusError(target, response.statusCode, text, retryAfter)
      );
    await sleep(delay, options.signal);
    target.onRetry?.();
  }
}

/**
 * A streamed response body, read a network read at a time under the silence watch: each chunk must
 * arrive within `timeoutMs`, else the body fails with a 504 `upstream_timeout` (an `AppError`, so no
 * caller mistakes it for a client's abort).
 */
export function bodyReader(target: UpstreamTarget, body: Readable): BodyReader {
  return new BodyReader(body, target.timeoutMs, () => timedOut(target));
}

function timedOut(target: UpstreamTarget) {
  return upstreamTimeout(`Upstream '${target.name}' did not answer within ${target.timeoutMs} ms.`);
}

/** Reads a body as text, at most `limit` bytes (error bodies must not exhaust memory). */
export async function readText(
  target: UpstreamTarget,
  body: DestroyableBody<Uint8Array>,
  limit = 32 * 1024 * 1024,
): Promise<string> {
  try {
    return await readBody(body, limit, { idle: { ms: target.timeoutMs, onSilence: () => timedOut(target) } });
  } catch (err) {
    if (err instanceof BodyTooLargeError) throw upstreamError('The upstream response is too large.', 'upstream_invalid_response');
    throw err;
  }
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
