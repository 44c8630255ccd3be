import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import { onResponseClose } from './request-context.js';

/**
 * An AbortSignal that fires when the client hangs up before the response is complete. Its reason
 * is an `AbortError`, so every layer below (undici, the providers, the stream loop) reads it as
 * a cancellation, not as a failure of the upstream.
 */
export function clientSignal(ctx: Context): AbortSignal {
  const controller = new AbortController();
  const res = ctx.res;
  onResponseClose(ctx, () => {
    if (!res.writableFinished) controller.abort(new DOMException('The client closed the connection.', 'AbortError'));
  });
  return controller.signal;
}

/** True once the client has gone: its connection is closed and the response can never be sent. */
export function clientGone(ctx: Context): boolean {
  return ctx.res.destroyed || (ctx.req as IncomingMessage).socket?.destroyed === true;
}
