import type { IncomingMessage } from 'node:http';
import { CancelSource, toAbortSignal } from '@switchboard/providers';
import type { Context } from 'koa';
import { onResponseClose } from './request-context.js';

/**
 * An AbortSignal that fires when the client hangs up before the response is complete. Its reason
 * is an `AbortError`, so every layer below (undici, the providers, the stream loop) reads it as
 * a cancellation, not as a failure of the upstream.
 */
export function clientSignal(ctx: Context): AbortSignal {
  return toAbortSignal(clientCancel(ctx));
}

/**
 * The client's hang-up as a `CancelSource` (a /v1 call's: an AbortController would cost the request
 * some 6 µs of CPU to make and listen on, see `CancelSource`), cancelled with an `AbortError` when
 * the response closes before it was written in full. `clientSignal` is the same as an AbortSignal.
 */
export function clientCancel(ctx: Context): CancelSource {
  const source = new CancelSource();
  const res = ctx.res;
  onResponseClose(ctx, () => {
    if (!res.writableFinished) source.cancel(new DOMException('The client closed the connection.', 'AbortError'));
  });
  return source;
}

/** True once the client has gone: its connection is closed and the response can never be sent. */
export function clientGone(ctx: Context): boolean {
  return ctx.res.destroyed || (ctx.req as IncomingMessage).socket?.destroyed === true;
}
