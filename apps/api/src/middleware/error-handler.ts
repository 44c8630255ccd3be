import type { Logger } from '@switchboard/logger';
import { AppError, toErrorResponse } from '@switchboard/protocol';
import { isAbort } from '@switchboard/providers';
import type { Context } from 'koa';
import { clientGone } from './client-signal.js';

/**
 * Any error of the layers below becomes the OpenAI error body (the front door, front-door.ts,
 * catches them). Errors in http-errors' shape (the router's, the body readers') keep their 4xx
 * status; anything unknown is a 500 whose message and stack go to the log only. A client that hung
 * up is no fault of ours: what its leaving caused (an aborted upstream call, a body cut short) is
 * not logged here; the request line says `client closed request`.
 */
export function answerError(ctx: Context, err: unknown, logger: Logger): void {
  if (clientGone(ctx) && causedByHangUp(err)) return;
  const error = fromHttpError(err);
  const { status, body, headers } = toErrorResponse(error);
  if (status >= 500 && !(error instanceof AppError)) {
    logger.error('unhandled error', { request_id: ctx.state.requestId, error: (err as Error)?.stack ?? String(err) });
  }
  if (ctx.headerSent || !ctx.writable) return; // a stream in progress handles its own errors
  ctx.status = status;
  ctx.set(headers);
  ctx.body = body;
}

const INVALID_JSON = 'The request body is not valid JSON (keys such as __proto__ are refused too).';
const TOO_LARGE = 'The request body is too large.';

/** 400 `invalid_json`: a JSON body that does not parse, is not an object or array, or has a `__proto__` key. */
export function invalidJsonBody(): AppError {
  return new AppError(INVALID_JSON, { status: 400, type: 'invalid_request_error', code: 'invalid_json' });
}

/** 413 `request_too_large`: a JSON body past `limits.maxBodyBytes`. */
export function bodyTooLarge(): AppError {
  return new AppError(TOO_LARGE, { status: 413, type: 'invalid_request_error', code: 'request_too_large' });
}

/** The router and body readers throw http-errors; give them OpenAI-shaped messages. */
function fromHttpError(err: unknown): unknown {
  if (err instanceof AppError || !(err instanceof Error)) return err;
  const e = err as Error & { status?: number; expose?: boolean; type?: string };
  if (typeof e.status !== 'number' || e.status < 400 || e.status >= 500) return err;
  const messages: Record<string, string> = {
    'entity.parse.failed': INVALID_JSON,
    'entity.too.large': TOO_LARGE,
    'encoding.unsupported': 'The request body has an unsupported content encoding.',
    'charset.unsupported': 'The request body has an unsupported charset.',
    'request.aborted': 'The request was aborted by the client.',
  };
  const badJson = e instanceof SyntaxError || e.type === 'entity.parse.failed';
  const message = badJson
    ? messages['entity.parse.failed']!
    : (e.type && messages[e.type]) || (e.expose ? e.message : 'The request could not be processed.');
  const code = e.status === 413 ? 'request_too_large' : badJson ? 'invalid_json' : null;
  return new AppError(message, { status: e.status, type: 'invalid_request_error', code });
}

/**
 * A body a reader could not read: errors in http-errors' shape carry a status; anything else (a zlib error
 * for a body that claims `Content-Encoding: gzip` but is not) is the client's fault, a 400.
 */
export function unreadableBody(err: Error): Error {
  if (typeof (err as { status?: unknown }).status === 'number') return err;
  return new AppError('The request body could not be decoded: check its Content-Encoding.', {
    status: 400,
    type: 'invalid_request_error',
    code: 'invalid_body',
  });
}

/** The errors a client's hang-up causes: our cancellation of its upstream call, or its body cut off. */
function causedByHangUp(err: unknown): boolean {
  if (isAbort(err)) return true;
  const e = err as { code?: unknown; type?: unknown; message?: unknown } | null;
  return e?.code === 'ECONNRESET' || e?.type === 'request.aborted' || e?.message === 'aborted';
}
