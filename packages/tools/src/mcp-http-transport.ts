import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import {
  type AnswerHead,
  type BodySink,
  BodyTooLargeError,
  bodyText,
  dispatchTarget,
  dropBody,
  type Exchange,
  exchange,
  firstHeader,
  SseDecoder,
} from '@switchboard/http';
import { isObject } from '@switchboard/protocol';
import type { Dispatcher } from 'undici';

/** The SDK transport's reconnection of the GET stream (and of a POST stream that can resume): 1 s ×1.5, 2 tries. */
const RECONNECT = { firstMs: 1_000, maxMs: 30_000, factor: 1.5, tries: 2 };
/** Redirects followed within the server's origin, as the SDK's transport does. */
const MAX_REDIRECTS = 5;
/** A JSON answer larger than this is refused (a tool's output is capped far below it anyway). */
const MAX_JSON_BYTES = 16 * 1024 * 1024;
/** How much of an error answer's body goes into the error. */
const MAX_ERROR_BYTES = 4_096;

/** Where requests go: undici's dispatch takes the origin and the path apart. */
interface Target {
  url: string;
  origin: string;
  path: string;
}

/** What reading an SSE body found: whether the response came, and the last whole event's id. */
interface StreamRead {
  answered: boolean;
  lastEventId: string | undefined;
  /** How many messages it brought. */
  messages: number;
}

/** The reason a request's exchange is aborted when the client gave up on it or the transport closed. */
class Abandoned extends Error {
  constructor() {
    super('the MCP request was abandoned');
  }
}

/**
 * The MCP Streamable HTTP transport (spec 2025-06-18, "Transports") under the SDK's `Client`, in
 * place of the SDK's `StreamableHTTPClientTransport`: the same exchange, read with less work. Each
 * message is POSTed as JSON (undici's `dispatch` on a keep-alive pool of the server's own, the
 * answer handed piece by piece to a reader chosen from its status and headers: the http package's `exchange`)
 * with `Accept: application/json, text/event-stream`, the session id the server gave at
 * initialization (`Mcp-Session-Id`) and the negotiated `MCP-Protocol-Version`; the answer — one
 * JSON body, or an SSE stream of messages ending with the response — is read from its bytes by
 * the SseDecoder the providers use, with no web streams and no Node streams.
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
  #started = false;
  #closed = false;
  readonly #target: Target;
  /** The POSTs of requests waiting for their answers, by request id: aborted when the client gives up on one. */
  readonly #pending = new Map<string | number, Exchange<unknown>>();
  /** Every exchange in flight (the GET stream's too): aborted when the transport closes. */
  readonly #open = new Set<Exchange<unknown>>();
  #reconnect: NodeJS.Timeout | undefined;
  #retryMs: number | undefined;
  /** The headers of every POST: the session's and the configured ones; rebuilt when the session changes. */
  #postHeaders: Record<string, string> | null = null;

  constructor(
    url: string,
    private readonly headers: Record<string, string>,
    private readonly agent: Dispatcher,
  ) {
    this.#target = target(new URL(url));
  }

  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  setProtocolVersion(version: string): void {
    this.#protocolVersion = version;
    this.#postHeaders = null;
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error('McpHttpTransport already started');
    this.#started = true;
  }

  async close(): Promise<void> {
    clearTimeout(this.#reconnect);
    this.#closed = true;
    for (const open of this.#open) open.abort(new Abandoned());
    this.#open.clear();
    this.#pending.clear();
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const id = 'method' in message && 'id' in message ? (message as { id: string | number }).id : undefined;
    const isRequest = id !== undefined;
    if ('method' in message && message.method === 'notifications/cancelled') this.#abandon(message.params?.requestId);
    let read: StreamRead | undefined;
    try {
      read = await this.#exchange(
        'POST',
        this.#postHeaders ?? this.#buildPostHeaders(),
        JSON.stringify(message),
        (head) => this.#answer(head, message, isRequest),
        id,
      );
    } catch (err) {
      // Abandoned by the client (it has already failed the request) or closed: nothing more to say.
      if (err instanceof Abandoned) return;
      this.onerror?.(err as Error);
      throw err;
    }
    if (!read || read.answered || this.#closed) return;
    // Broken off before the response: resumable when the server numbered its events, else the request fails now.
    if (read.lastEventId === undefined) {
      const error = new Error('the MCP server ended its event stream before it answered');
      this.onerror?.(error);
      throw error;
    }
    this.#listen(read.lastEventId, 0);
  }

  /** How a POST's answer is read, from its status and headers; an SSE answer's reading is the value. */
  #answer(head: AnswerHead, message: JSONRPCMessage, isRequest: boolean): BodySink<StreamRead | undefined> {
    const session = firstHeader(head.headers, 'mcp-session-id');
    if (session && session !== this.#sessionId) {
      this.#sessionId = session;
      this.#postHeaders = null;
    }
    const status = head.statusCode;
    if (status < 200 || status > 299) {
      const text = bodyText(MAX_ERROR_BYTES, { truncate: true });
      const fail = () => {
        // The spec: a 404 to a request with a session id means the session is gone, and the client
        // MUST start a new one. This request fails with the 404; then the transport closes, and
        // McpServers connects again (a new initialize, without the old id).
        if (status === 404 && this.#sessionId) setImmediate(() => void this.close());
        throw new StreamableHTTPError(status, `Error POSTing to endpoint: ${text.end()}`);
      };
      return { data: (chunk) => text.data(chunk), end: fail, broken: fail };
    }
    if (status === 202 || !isRequest) {
      const initialized = 'method' in message && message.method === 'notifications/initialized';
      if (status === 202 && initialized) this.#listen(undefined, null);
      return dropBody(undefined);
    }
    const type = mediaType(head.headers);
    if (type === 'application/json') {
      const text = bodyText(MAX_JSON_BYTES, { tooLarge: () => new BodyTooLargeError(MAX_JSON_BYTES) });
      return {
        data: (chunk) => text.data(chunk),
        end: () => {
          const data: unknown = JSON.parse(text.end());
          for (const one of Array.isArray(data) ? data : [data]) this.onmessage?.(jsonRpcMessage(one));
          return undefined;
        },
      };
    }
    if (type === 'text/event-stream') return this.#stream(undefined);
    return {
      data: () => undefined,
      end: () => {
        throw new StreamableHTTPError(-1, `Unexpected content type: ${head.headers['content-type']}`);
      },
    };
  }

  /** The client gave up on a request (time-out, abort): its POST, if still open, is aborted. */
  #abandon(requestId: unknown): void {
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return;
    this.#pending.get(requestId)?.abort(new Abandoned());
  }

  /**
   * A request to the endpoint, redirects followed within its origin; its answer read by the sink
   * `read` chooses. Aborted by close(), and — with the id of the request it carries — when the
   * client gives up on that request.
   */
  async #exchange<T>(
    method: 'GET' | 'POST',
    headers: Record<string, string>,
    body: string | null,
    read: (head: AnswerHead) => BodySink<T>,
    id?: string | number,
  ): Promise<T> {
    let to = this.#target;
    for (let followed = 0; ; followed++) {
      if (this.#closed) throw followed === 0 ? new Error('McpHttpTransport is closed') : new Abandoned();
      let next: Target | undefined;
      const request = { origin: to.origin, path: to.path, method, headers, body };
      const current = to;
      const call = exchange(this.agent, request, (head) => {
        next = followed < MAX_REDIRECTS ? redirectWithinOrigin(current.url, method, head) : undefined;
        return next ? dropBody(undefined as T) : read(head);
      });
      this.#open.add(call);
      if (id !== undefined) this.#pending.set(id, call);
      try {
        const value = await call.done;
        if (!next) return value;
      } finally {
        this.#open.delete(call);
        if (id !== undefined && this.#pending.get(id) === call) this.#pending.delete(id);
      }
      to = next;
    }
  }

  #buildPostHeaders(): Record<string, string> {
    const base: Record<string, string> = {};
    if (this.#sessionId) base['mcp-session-id'] = this.#sessionId;
    if (this.#protocolVersion) base['mcp-protocol-version'] = this.#protocolVersion;
    Object.assign(base, this.headers);
    base['content-type'] = 'application/json';
    base.accept = 'application/json, text/event-stream';
    this.#postHeaders = base;
    return base;
  }

  /** An SSE body's reader: each message goes to the client as its event completes; the value says whether a response came. */
  #stream(resumedFrom: string | undefined): BodySink<StreamRead> {
    const decoder = new SseDecoder();
    let answered = false;
    let messages = 0;
    const take = (events: ReturnType<SseDecoder['push']>) => {
      for (const event of events) {
        if (!event.data || (event.event !== null && event.event !== 'message')) continue;
        try {
          const message = jsonRpcMessage(JSON.parse(event.data));
          messages++;
          if (!('method' in message)) answered = true;
          this.onmessage?.(message);
        } catch (err) {
          this.onerror?.(err as Error);
        }
      }
    };
    const read = (): StreamRead => {
      if (decoder.retryMs !== undefined) this.#retryMs = decoder.retryMs;
      return { answered, lastEventId: decoder.lastEventId ?? resumedFrom, messages };
    };
    return {
      data: (chunk) => void take(decoder.push(chunk)),
      end: () => {
        take(decoder.end());
        return read();
      },
      broken: (error) => {
        // After the response, a break costs nothing; before it, the caller resumes (an event id) or fails.
        const sofar = read();
        if (!answered && decoder.lastEventId === undefined) throw error;
        return sofar;
      },
    };
  }

  /**
   * The server's own stream (GET), read in the background: opened after initialization (`tries`
   * null: not tried again when it fails, as the SDK's transport), and again with `Last-Event-ID`
   * when it ends or breaks — or to resume a POST stream that broke before its response. `quiet`:
   * how many streams in a row the server ended with no message in them.
   */
  #listen(lastEventId: string | undefined, tries: number | null, quiet = 0): void {
    const headers: Record<string, string> = { ...this.#headersOfSession(), accept: 'text/event-stream' };
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
    /** Set once the stream is open (2xx): a failure after that is a disconnect, not a failure to open. */
    let opened = false;
    const read = (head: AnswerHead): BodySink<StreamRead | null> => {
      if (head.statusCode === 405) return dropBody(null);
      if (head.statusCode < 200 || head.statusCode > 299)
        throw new StreamableHTTPError(head.statusCode, 'Failed to open SSE stream');
      opened = true;
      return this.#stream(lastEventId);
    };
    this.#exchange('GET', headers, null, read).then(
      (read) => {
        // A stream that resumed a POST's and brought its response is done; the server's own is opened again.
        if (read && !read.answered) this.#again(read.lastEventId, 0, read.messages === 0 ? quiet + 1 : 0);
      },
      (err: Error) => {
        if (this.#closed || err instanceof Abandoned) return;
        if (opened) {
          this.onerror?.(new Error(`SSE stream disconnected: ${err.message}`));
          this.#again(lastEventId, 0);
          return;
        }
        this.onerror?.(err);
        if (tries !== null) this.#again(lastEventId, tries + 1);
      },
    );
  }

  /** The session's headers and the configured ones, for a GET. */
  #headersOfSession(): Record<string, string> {
    const { 'content-type': _type, accept: _accept, ...rest } = this.#postHeaders ?? this.#buildPostHeaders();
    return rest;
  }

  #again(lastEventId: string | undefined, tries: number, quiet = 0): void {
    if (this.#closed) return;
    if (tries >= RECONNECT.tries) {
      this.onerror?.(new Error(`Maximum reconnection attempts (${RECONNECT.tries}) exceeded.`));
      return;
    }
    const wait = this.#retryMs ?? Math.min(RECONNECT.firstMs * RECONNECT.factor ** tries, RECONNECT.maxMs);
    // A server that ends its stream at once, each time with nothing in it, is asked again later and
    // later (×1.5 per empty stream, to 30 s), not every second for as long as the session lasts; a
    // stream that brought a message starts the count again.
    const later = quiet === 0 ? wait : Math.max(wait, Math.min(wait * RECONNECT.factor ** quiet, RECONNECT.maxMs));
    this.#reconnect = setTimeout(() => this.#listen(lastEventId, tries, quiet), later);
    this.#reconnect.unref();
  }
}

function target(url: URL): Target {
  return { url: url.href, ...dispatchTarget(url) };
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

/** The answer's media type without parameters, lower case (`text/event-stream; charset=utf-8` → `text/event-stream`). */
function mediaType(headers: AnswerHead['headers']): string {
  return (firstHeader(headers, 'content-type') ?? '').split(';', 1)[0]!.trim().toLowerCase();
}

/**
 * Where a redirect leads when it may be followed: within the request's origin, no credentials
 * added, and a POST only by 307/308 (301-303 would turn it into a GET without its message).
 */
function redirectWithinOrigin(url: string, method: string, answer: AnswerHead): Target | undefined {
  const status = answer.statusCode;
  if (status < 301 || status > 308 || (status > 303 && status < 307)) return undefined;
  if (method !== 'GET' && status !== 307 && status !== 308) return undefined;
  const location = firstHeader(answer.headers, 'location');
  if (!location) return undefined;
  try {
    const from = new URL(url);
    const to = new URL(location, from);
    if (to.origin !== from.origin || to.username || to.password) return undefined;
    return target(to);
  } catch {
    return undefined;
  }
}
