import {
  bodyText,
  classifyTransportFailure,
  closePool,
  createPool,
  dispatchTarget,
  exchange,
  parseJsonOrUndefined,
  readBody,
} from '@switchboard/http';
import { isRetryableStatus, scrubSecrets } from '@switchboard/protocol';
import { type Agent, request } from 'undici';
import { DeliveryError } from './delivery-error.js';

/**
 * The delivery side of every adapter: one keep-alive pool per adapter, a 10 s timeout, and the
 * single place where transport failures and HTTP statuses become `DeliveryError`s.
 */

/** Time allowed to connect, to receive the response headers, and between body chunks. */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** Error and success bodies of chat APIs are small; anything past this is not worth reading. */
const MAX_RESPONSE_BYTES = 256 * 1024;

/** One JSON request to a platform. */
export interface JsonCall {
  /** Names the call in error messages, e.g. `Telegram sendMessage`; must never hold a secret. */
  label: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  /** Sent as JSON; none for a GET or a DELETE. */
  body?: unknown;
  /** Sent as `application/x-www-form-urlencoded` instead of `body` (OAuth token endpoints). */
  form?: Record<string, string>;
}

/** A platform's answer, read whatever its status, for the adapter to judge. */
export interface JsonReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  json: unknown;
}

/**
 * A keep-alive connection pool and the one way adapters call a platform. Each adapter owns one,
 * so a slow platform cannot take the connections another needs.
 */
export class DeliveryClient {
  readonly #pool: { agent: Agent; closing?: Promise<void> };
  readonly #onCall: ((status: number | null) => void) | undefined;
  /** The last URL sent to and where it is dispatched (a hook posts to the same URL again and again). */
  #lastUrl = '';
  #lastTarget: DispatchTarget | null = null;

  constructor(onCall?: (status: number | null) => void, pool?: { agent: Agent; closing?: Promise<void> }) {
    this.#pool = pool ?? { agent: createPool({ connections: 64, connectTimeoutMs: DELIVERY_TIMEOUT_MS }) };
    this.#onCall = onCall;
  }

  /** The same pool, each call told to `onCall` with its status (null: no answer): the metrics of deliveries. */
  observed(onCall: (status: number | null) => void): DeliveryClient {
    return new DeliveryClient(onCall, this.#pool);
  }

  /** Sends JSON and reads the answer whatever its status; throws a retryable error if the transport fails. */
  async send(call: JsonCall): Promise<JsonReply> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    if (call.form !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    // Lowercased so a caller's `Content-Type` replaces ours instead of being sent twice.
    const extra = call.headers;
    if (extra) for (const name in extra) headers[name.toLowerCase()] = extra[name]!;
    const body = call.form
      ? new URLSearchParams(call.form).toString()
      : call.body === undefined
        ? null
        : JSON.stringify(call.body);
    let answer: Omit<JsonReply, 'json'>;
    try {
      answer = await send(this.#pool.agent, { url: call.url, method: call.method, headers, body }, this.#target(call.url));
    } catch (err) {
      this.#onCall?.(null);
      throw transportFailure(call.label, err);
    }
    this.#onCall?.(answer.status);
    return { status: answer.status, headers: answer.headers, text: answer.text, json: parseJsonOrUndefined(answer.text) };
  }

  /** Where `url` is dispatched, or null when it goes through `request` (see `send`); the last one is kept. */
  #target(url: string): DispatchTarget | null {
    if (url !== this.#lastUrl) {
      this.#lastUrl = url;
      this.#lastTarget = dispatchTargetOf(url);
    }
    return this.#lastTarget;
  }

  /** Closes the pool once, however often it is called; a delivery still in flight after a moment is cut. */
  async close(): Promise<void> {
    this.#pool.closing ??= closePool(this.#pool.agent);
    await this.#pool.closing;
  }
}

/** A request as it goes on the wire: the headers complete, the body serialized. */
interface WireCall {
  url: string;
  method: JsonCall['method'];
  headers: Record<string, string>;
  body: string | null;
}

type DispatchTarget = ReturnType<typeof dispatchTarget>;

/** Where a plain http(s) URL is dispatched; null for any other (no URL, credentials in it, another scheme). */
function dispatchTargetOf(url: string): DispatchTarget | null {
  const target = URL.canParse(url) ? new URL(url) : null;
  if (!target || (target.protocol !== 'http:' && target.protocol !== 'https:') || target.username || target.password) return null;
  return dispatchTarget(target);
}

/**
 * One request and its answer (status, headers, the body as text, at most MAX_RESPONSE_BYTES: past
 * that the rest is dropped and the connection closed). A plain http(s) URL (`target`) goes through
 * the pool's `dispatch` with the http package's `exchange`, which hands the body to a sink as
 * undici parses it, without the Readable `request` makes of every body and readBody's reading of
 * it (about 35 → 20 µs of CPU a request, a local micro-benchmark); any other URL through
 * `request`, which reports it as before.
 */
function send(agent: Agent, call: WireCall, target: DispatchTarget | null): Promise<Omit<JsonReply, 'json'>> {
  if (!target) return viaRequest(agent, call);
  const { method, headers, body } = call;
  const request = {
    origin: target.origin,
    path: target.path,
    method,
    headers,
    body,
    headersTimeout: DELIVERY_TIMEOUT_MS,
    bodyTimeout: DELIVERY_TIMEOUT_MS,
  };
  let status = 0;
  let answerHeaders: JsonReply['headers'] = {};
  return exchange(agent, request, (head) => {
    status = head.statusCode;
    answerHeaders = head.headers;
    return bodyText(MAX_RESPONSE_BYTES, { truncate: true, keepOnBreak: false });
  }).done.then((text) => ({ status, headers: answerHeaders, text }));
}

async function viaRequest(agent: Agent, { url, method, headers, body }: WireCall): Promise<Omit<JsonReply, 'json'>> {
  const response = await request(url, {
    dispatcher: agent,
    method,
    headers,
    body,
    headersTimeout: DELIVERY_TIMEOUT_MS,
    bodyTimeout: DELIVERY_TIMEOUT_MS,
  });
  const text = await readBody(response.body, MAX_RESPONSE_BYTES, { truncate: true });
  return { status: response.statusCode, headers: response.headers, text };
}

/**
 * Network errors and timeouts are worth retrying. The message names only the error code: undici
 * messages can carry the URL, and Telegram's URL holds the bot token.
 */
export function transportFailure(label: string, err: unknown): DeliveryError {
  const failure = classifyTransportFailure(err);
  if (failure.kind === 'timeout' || failure.kind === 'connect-timeout') {
    return new DeliveryError(`${label} timed out after ${DELIVERY_TIMEOUT_MS} ms`, true);
  }
  return new DeliveryError(`${label} could not reach the server (${failure.code})`, true);
}

/**
 * Maps a refused call to a `DeliveryError`: 401/403 mean our credentials are refused; 408, 409,
 * 429 and 5xx are retryable (decided in one place, `isRetryableStatus`); other statuses are final.
 *
 * @param detail - The platform's own explanation, already free of secrets (see `redact`).
 */
export function statusFailure(label: string, status: number, detail: string, retryAfterMs?: number): DeliveryError {
  const message = `${label} failed with ${status}${detail ? `: ${detail}` : ''}`;
  if (status === 401 || status === 403) return new DeliveryError(message, false, { credentialsRefused: true });
  if (isRetryableStatus(status)) return new DeliveryError(message, true, retryAfterMs === undefined ? {} : { retryAfterMs });
  return new DeliveryError(message, false);
}

/** Seconds (possibly fractional, as Telegram and Discord send them) to whole milliseconds. */
export function secondsToMs(seconds: number | undefined): number | undefined {
  return seconds === undefined || !Number.isFinite(seconds) || seconds < 0 ? undefined : Math.ceil(seconds * 1000);
}

/**
 * Makes platform text safe to put in an error message: one line, at most 200 characters, and
 * without any of `secrets` (raw or URL-encoded) in case the platform echoes them.
 */
export function redact(text: string, secrets: readonly string[]): string {
  const forms = secrets.flatMap((secret) => [secret, encodeURIComponent(secret)]);
  return scrubSecrets(text.replace(/\s+/g, ' ').trim(), forms).slice(0, 200);
}
