import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { readBody, SseDecoder } from '@switchboard/http';
import { type Dispatcher, request } from 'undici';

/** The SDK transport's reconnection of the GET stream (and of a POST stream that can resume): 1 s ×1.5, 2 tries. */
const RECONNECT = { firstMs: 1_000, maxMs: 30_000, factor: 1.5, tries: 2 };
/** Redirects followed within the server's origin, as the SDK's transport does. */
const MAX_REDIRECTS = 5;
/** A JSON answer larger than this is refused (a tool's output is capped far below it anyway). */
const MAX_JSON_BYTES = 16 * 1024 * 1024;
/** How much of an error answer's body goes into the error. */
const MAX_ERROR_BYTES = 4_096;

type Body = Dispatcher.ResponseData['body'];

/**
 * The MCP Streamable HTTP transport (spec 2025-06-18, "Transports") under the SDK's `Client`, in
 * place of the SDK's `StreamableHTTPClientTransport`: the same exchange, read with less work. Each
 * message is POSTed as JSON (undici's `request` on a keep-alive pool of the server's own) with
 * `Accept: application/json, text/event-stream`, the session id the server gave at initialization
 * (`Mcp-Session-Id`) and the negotiated `MCP-Protocol-Version`; the answer — one JSON body, or an
 * SSE stream of messages ending with the response — is read from the body's bytes by the SseDecoder
 * the providers use, with no web streams (the SDK's reading cost a worker about 0.2 ms per call).
 * After `notifications/initialized` a GET opens the server's own SSE stream (405: the server has
 * none), where it sends notifications such as `tools/list_changed`; that stream, and a POST stream
 * that carried an event id and broke before its response, are resumed with `Last-Event-ID` as the
 * SDK's transport does (its defaults: 1 s, ×1.5, 2 tries; the server's `retry` when it sent one).
 * Redirects are followed within the server's origin only (307/308 for a POST), at most 5. A 404 to
 * a request with a session id (the session is gone) closes the transport, so that the connection
 * is made again with a new session, as the spec requires.
 * A POST stream that ends without the response and cannot be resumed fails the request at once;
 * one the client gave up on (its time-out or abort: the SDK then sends `notifications/cancelled`)
 * is aborted, its connection closed, rather than left open until undici's own time-outs (300 s).
 * Each message is checked for JSON-RPC's shape only: the SDK's Client checks it again, strictly,
 * as it dispatches it, and validates a result against the request's schema.
 */
export class McpHttpTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #sessionId: string | undefined;
  #protocolVersion: string | undefined;
  #abort: AbortController | null = null;
  /** The POSTs of requests waiting for their answers, by request id: aborted when the client gives up on one. */
  readonly #pending = new Map<string | number, AbortController>();
  #reconnect: NodeJS.Timeout | undefined;
  #retryMs: number | undefined;
  /** The headers of every request: the configured ones and the session's; rebuilt when the session changes. */
  #base: Record<string, string> | null = null;

  constructor(
    private readonly url: string,
    private readonly headers: Record<string, string>,
    private readonly agent: Dispatcher,
  ) {}

  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  setProtocolVersion(version: string): void {
    this.#protocolVersion = version;
    this.#base = null;
  }

  async start(): Promise<void> {
    if (this.#abort) throw new Error('McpHttpTransport already started');
    this.#abort = new AbortController();
  }

  async close(): Promise<void> {
    clearTimeout(this.#reconnect);
    this.#abort?.abort();
    for (const pending of this.#pending.values()) pending.abort();
    this.#pending.clear();
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const id = 'method' in message && 'id' in message ? (message as { id: string | number }).id : undefined;
    const isRequest = id !== undefined;
    if ('method' in message && message.method === 'notifications/cancelled') this.#abandon(message.params?.requestId);
    const own = id === undefined ? undefined : new AbortController();
    if (id !== undefined && own) this.#pending.set(id, own);
    try {
      const answer = await this.#request(
        'POST',
        { 'content-type': 'application/json', accept: 'application/json, text/event-stream', body: JSON.stringify(message) },
        own?.signal,
      );
      const session = header(answer.headers, 'mcp-session-id');
      if (session && session !== this.#sessionId) {
        this.#sessionId = session;
        this.#base = null;
      }
      if (answer.statusCode < 200 || answer.statusCode > 299) {
        const text = await readBody(answer.body, MAX_ERROR_BYTES, { truncate: true }).catch(() => '');
        // The spec: a 404 to a request with a session id means the session is gone, and the client
        // MUST start a new one. This request fails with the 404; then the transport closes, and
        // McpServers connects again (a new initialize, without the old id).
        if (answer.statusCode === 404 && this.#sessionId) setImmediate(() => void this.close());
        throw new StreamableHTTPError(answer.statusCode, `Error POSTing to endpoint: ${text}`);
      }
      if (answer.statusCode === 202 || !isRequest) {
        await answer.body.dump();
        const initialized = 'method' in message && message.method === 'notifications/initialized';
        if (answer.statusCode === 202 && initialized) this.#listen(undefined, null);
        return;
      }
      const type = mediaType(answer.headers);
      if (type === 'application/json') {
        const data: unknown = JSON.parse(await readBody(answer.body, MAX_JSON_BYTES));
        for (const one of Array.isArray(data) ? data : [data]) this.onmessage?.(jsonRpcMessage(one));
      } else if (type === 'text/event-stream') {
        const { answered, lastEventId } = await this.#read(answer.body);
        if (answered || own?.signal.aborted) return;
        // Broken off before the response: resumable when the server numbered its events, else the request fails now.
        if (lastEventId === undefined) throw new Error('the MCP server ended its event stream before it answered');
        this.#listen(lastEventId, 0);
      } else {
        await answer.body.dump();
        throw new StreamableHTTPError(-1, `Unexpected content type: ${answer.headers['content-type']}`);
      }
    } catch (err) {
      // Abandoned by the client (it has already failed the request): nothing more to say.
      if (own?.signal.aborted) return;
      this.onerror?.(err as Error);
      throw err;
    } finally {
      if (id !== undefined && this.#pending.get(id) === own) this.#pending.delete(id);
    }
  }

  /** The client gave up on a request (time-out, abort): its POST, if still open, is aborted. */
  #abandon(requestId: unknown): void {
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return;
    this.#pending.get(requestId)?.abort();
    this.#pending.delete(requestId);
  }

  /** A request to the endpoint with this session's headers, redirects followed within its origin. */
  async #request(
    method: 'GET' | 'POST',
    extra: Record<string, string> & { body?: string },
    own?: AbortSignal,
  ): Promise<Dispatcher.ResponseData> {
    const { body = null, ...more } = extra;
    const headers = { ...this.#headers(), ...more };
    // A request's own signal is aborted by close() as well as when the client gives up on it.
    const signal = own ?? this.#abort?.signal;
    let url = this.url;
    for (let followed = 0; ; followed++) {
      const answer = await request(url, { method, headers, body, signal, dispatcher: this.agent });
      const next = followed < MAX_REDIRECTS ? redirectWithinOrigin(url, method, answer) : undefined;
      if (!next) return answer;
      await answer.body.dump();
      url = next;
    }
  }

  #headers(): Record<string, string> {
    if (this.#base) return this.#base;
    const base: Record<string, string> = {};
    if (this.#sessionId) base['mcp-session-id'] = this.#sessionId;
    if (this.#protocolVersion) base['mcp-protocol-version'] = this.#protocolVersion;
    this.#base = Object.assign(base, this.headers);
    return this.#base;
  }

  /** Hands each message of an SSE body to the client; whether a response came, and the last event id. */
  async #read(body: Body): Promise<{ answered: boolean; lastEventId: string | undefined }> {
    const decoder = new SseDecoder();
    let answered = false;
    const take = (events: ReturnType<SseDecoder['push']>) => {
      for (const event of events) {
        if (!event.data || (event.event !== null && event.event !== 'message')) continue;
        try {
          const message = jsonRpcMessage(JSON.parse(event.data));
          if (!('method' in message)) answered = true;
          this.onmessage?.(message);
        } catch (err) {
          this.onerror?.(err as Error);
        }
      }
    };
    try {
      for await (const chunk of body) take(decoder.push(chunk));
      take(decoder.end());
    } catch (err) {
      // After the response, a break costs nothing; before it, the caller resumes (an event id) or fails.
      if (!answered && decoder.lastEventId === undefined) throw err;
    } finally {
      if (decoder.retryMs !== undefined) this.#retryMs = decoder.retryMs;
    }
    return { answered, lastEventId: decoder.lastEventId };
  }

  /**
   * The server's own stream (GET), read in the background: opened after initialization (`tries`
   * null: not tried again when it fails, as the SDK's transport), and again with `Last-Event-ID`
   * when it ends or breaks — or to resume a POST stream that broke before its response.
   */
  #listen(lastEventId: string | undefined, tries: number | null): void {
    const open = async () => {
      const answer = await this.#request('GET', {
        accept: 'text/event-stream',
        ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }),
      });
      if (answer.statusCode === 405) return void (await answer.body.dump());
      if (answer.statusCode < 200 || answer.statusCode > 299) {
        await answer.body.dump();
        throw new StreamableHTTPError(answer.statusCode, 'Failed to open SSE stream');
      }
      let read: { answered: boolean; lastEventId: string | undefined };
      try {
        read = await this.#read(answer.body);
      } catch (err) {
        if (this.#closed()) return;
        this.onerror?.(new Error(`SSE stream disconnected: ${(err as Error).message}`));
        read = { answered: false, lastEventId };
      }
      // A stream that resumed a POST's and brought its response is done; the server's own is opened again.
      if (!read.answered) this.#again(read.lastEventId ?? lastEventId, 0);
    };
    open().catch((err: Error) => {
      if (this.#closed()) return;
      this.onerror?.(err);
      if (tries !== null) this.#again(lastEventId, tries + 1);
    });
  }

  #again(lastEventId: string | undefined, tries: number): void {
    if (this.#closed()) return;
    if (tries >= RECONNECT.tries) {
      this.onerror?.(new Error(`Maximum reconnection attempts (${RECONNECT.tries}) exceeded.`));
      return;
    }
    const wait = this.#retryMs ?? Math.min(RECONNECT.firstMs * RECONNECT.factor ** tries, RECONNECT.maxMs);
    this.#reconnect = setTimeout(() => this.#listen(lastEventId, tries), wait);
    this.#reconnect.unref();
  }

  #closed(): boolean {
    return !this.#abort || this.#abort.signal.aborted;
  }
}

/**
 * `value` when it has JSON-RPC 2.0's shape — a request or notification (`method`), a result (`id`
 * and `result`) or an error (`error`) — else an error. The SDK's Client checks each message
 * strictly as it dispatches it (and reports one it cannot place); this only keeps a stray value
 * from passing for an answer.
 */
function jsonRpcMessage(value: unknown): JSONRPCMessage {
  if (typeof value === 'object' && value !== null && (value as { jsonrpc?: unknown }).jsonrpc === '2.0') {
    const message = value as Record<string, unknown>;
    if (typeof message.method === 'string') return value as JSONRPCMessage;
    const id = message.id;
    if (isObject(message.error) || ((typeof id === 'string' || typeof id === 'number') && isObject(message.result)))
      return value as JSONRPCMessage;
  }
  throw new Error(`not a JSON-RPC 2.0 message: ${JSON.stringify(value)?.slice(0, 200)}`);
}

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function header(headers: Dispatcher.ResponseData['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The answer's media type without parameters, lower case (`text/event-stream; charset=utf-8` → `text/event-stream`). */
function mediaType(headers: Dispatcher.ResponseData['headers']): string {
  return (header(headers, 'content-type') ?? '').split(';', 1)[0]!.trim().toLowerCase();
}

/**
 * Where a redirect leads when it may be followed: within the request's origin, no credentials
 * added, and a POST only by 307/308 (301-303 would turn it into a GET without its message).
 */
function redirectWithinOrigin(url: string, method: string, answer: Dispatcher.ResponseData): string | undefined {
  const status = answer.statusCode;
  if (![301, 302, 303, 307, 308].includes(status)) return undefined;
  if (method !== 'GET' && status !== 307 && status !== 308) return undefined;
  const location = header(answer.headers, 'location');
  if (!location) return undefined;
  try {
    const from = new URL(url);
    const to = new URL(location, from);
    if (to.origin !== from.origin || to.username || to.password) return undefined;
    return to.href;
  } catch {
    return undefined;
  }
}
