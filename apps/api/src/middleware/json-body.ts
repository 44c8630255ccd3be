import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createUnzip } from 'node:zlib';
import { AppError } from '@switchboard/protocol';
import type { Context, Request } from 'koa';
import { bodyTooLarge, invalidJsonBody, unreadableBody } from './error-handler.js';
import { requireJsonContentType } from './json-guards.js';

/** The types read as JSON (what koa-body read before this reader); another JSON type passes the 415 check unread. */
const JSON_TYPES = [
  'application/json',
  'application/json-patch+json',
  'application/vnd.api+json',
  'application/csp-report',
  'application/reports+json',
];

/**
 * Whether a request's body is read as JSON: a declared type that is not JSON is a 415
 * (`requireJsonContentType`); one of `JSON_TYPES` on a request with a body is read; anything else
 * (no type, `application/foo+json`) is left unread, `ctx.request.body` undefined.
 */
export function wantsJsonBody(ctx: Context): boolean {
  const { headers } = ctx.req;
  // The common request, which both checks below accept (type-is: a body is declared by either header).
  if (headers['content-type'] === 'application/json' && (headers['transfer-encoding'] !== undefined || headers['content-length']))
    return true;
  requireJsonContentType(ctx);
  return Boolean(ctx.is(JSON_TYPES));
}

/** A body is JSON only with an object or an array at the top (leading JSON whitespace allowed). */
const STRICT_JSON = /^[ \t\n\r]*[[{]/;
/** A `"__proto__":` key, any of its characters maybe escaped (@hapi/bourne's test, which koa-body used). */
const PROTO_KEY =
  /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/;

/**
 * The request's JSON body, read with `'data'` events (one promise, no stream of our own in
 * between) within `limit` bytes, decoded as UTF-8 (a BOM dropped, the declared charset ignored, as
 * before), after `Content-Encoding` gzip, deflate or br. An empty body is `{}`. Refused: more than
 * `limit` bytes (declared or received, after decompression: 413), another encoding (415), a body
 * that does not decompress (400 `invalid_body`), anything but an object or array at the top, bad
 * JSON, or a `__proto__` key anywhere (400 `invalid_json`). A client that hangs up or is cut for
 * being too slow (the server's body time-out) fails the read as `request.aborted`, which the error
 * handler leaves unanswered once the client is gone.
 */
export function readJsonBody(req: IncomingMessage, limit: number): Promise<Request['body']> {
  const encoding = req.headers['content-encoding'] || 'identity';
  let source: Readable = req;
  let length: number | null = null;
  if (encoding === 'identity') {
    const declared = req.headers['content-length'];
    if (declared) {
      length = Number(declared) | 0; // co-body's ~~, on a length Node's parser has checked
      if (length > limit) return Promise.reject(bodyTooLarge());
    }
  } else {
    const decompress =
      encoding === 'gzip' || encoding === 'deflate' ? createUnzip() : encoding === 'br' ? createBrotliDecompress() : null;
    if (!decompress) return Promise.reject(unsupportedEncoding());
    source = req.pipe(decompress);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const settle = (err: Error | null, body?: Request['body']) => {
      source.off('data', onData);
      source.off('end', onEnd);
      source.off('error', onError);
      req.off('aborted', onAborted);
      req.off('close', onClose);
      if (!err) {
        resolve(body);
        return;
      }
      // Read no further (raw-body's halt, which koa-body did).
      source.unpipe();
      source.pause();
      reject(err);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) settle(bodyTooLarge());
      else chunks.push(chunk);
    };
    const onEnd = () => {
      if (length !== null && received !== length) {
        settle(httpError(400, 'request size did not match content length', 'request.size.invalid'));
        return;
      }
      const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received);
      try {
        settle(null, parseStrictJson(bytes.toString('utf8')));
      } catch {
        settle(invalidJsonBody());
      }
    };
    const onError = (err: Error) => settle(unreadableBody(err));
    const onAborted = () => settle(httpError(400, 'request aborted', 'request.aborted'));
    // A connection gone before the whole request arrived (its 'aborted' first, as a rule). Once it
    // has, the request closes while a decompressed body may still be coming.
    const onClose = () => {
      if (!req.complete) onAborted();
    };
    source.on('data', onData);
    source.on('end', onEnd);
    source.on('error', onError);
    req.on('aborted', onAborted);
    req.on('close', onClose);
  });
}

/** The body's text as JSON: `{}` when empty; throws for anything but an object or array, or a `__proto__` key. */
export function parseStrictJson(text: string): Request['body'] {
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (json === '') return {};
  if (!STRICT_JSON.test(json)) throw new SyntaxError('The body must be a JSON object or array.');
  const value: Request['body'] = JSON.parse(json);
  if (PROTO_KEY.test(json)) refuseProtoKeys(value);
  return value;
}

/** Throws when any object in `value` has an own `__proto__` key (JSON.parse makes it an own property). */
function refuseProtoKeys(value: unknown): void {
  let level: object[] = [value as object];
  while (level.length) {
    const next: object[] = [];
    for (const node of level) {
      if (Object.hasOwn(node, '__proto__')) throw new SyntaxError('The body has a __proto__ key.');
      for (const item of Object.values(node)) if (item && typeof item === 'object') next.push(item);
    }
    level = next;
  }
}

/** An unsupported Content-Encoding: 415, with the message koa-body's error got. */
function unsupportedEncoding(): AppError {
  return new AppError('The request could not be processed.', { status: 415, type: 'invalid_request_error' });
}

/** An error in http-errors' shape, which the error handler words (and, for `request.aborted`, leaves unanswered once the client is gone). */
function httpError(status: number, message: string, type: string): Error {
  return Object.assign(new Error(message), { status, expose: true, type });
}
