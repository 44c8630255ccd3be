import { randomUUID } from 'node:crypto';
import type { Logger } from '@switchboard/logger';
import type { Context } from 'koa';
import { requestTimedOut } from '../request-timeouts.js';

const VALID_ID = /^[\w.:-]{1,128}$/;

/**
 * Gives each request an id (the client's `X-Request-Id` when it is sane), echoes it, and logs
 * one JSON line when the response is over — streams included. No bodies, no headers. A request
 * whose client hung up first is one info line `client closed request` with status 499 (408
 * when it was we who cut it, for sending too slowly).
 */
export function requestContext(logger: Logger): (ctx: Context) => void {
  // Not a middleware of its own: the front door (front-door.ts) calls it first, nothing to wait for.
  return (ctx) => {
    const given = ctx.get('x-request-id');
    const requestId = VALID_ID.test(given) ? given : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    const started = performance.now();
    if (logger.isInfoEnabled())
      onResponseClose(ctx, () => {
        const finished = ctx.res.writableFinished;
        const timedOut = requestTimedOut(ctx.req.socket);
        // One object, not (message, meta): winston logs it as it is instead of copying it into a new one.
        logger.info({
          message: finished ? 'request' : timedOut ? 'request timed out' : 'client closed request',
          method: ctx.method,
          path: ctx.path,
          status: finished ? ctx.res.statusCode : timedOut ? 408 : 499,
          ms: Math.round((performance.now() - started) * 100) / 100,
          model: ctx.state.model,
          request_id: requestId,
          // What a route adds to its line (a hook's name and the job it queued…).
          ...(ctx.state.log as Record<string, unknown> | undefined),
        });
      });
  };
}

/**
 * Runs `fn` once the response is over (written in full, or the client gone), in the order asked;
 * at once when it is over already (a client that left while the route awaited something, before
 * it asked for the client's signal). The layers that wait for that moment — the log line, metrics,
 * the client's abort signal — share one 'close' listener per request instead of adding one each.
 */
export function onResponseClose(ctx: Context, fn: () => void): void {
  if (ctx.res.closed) {
    fn();
    return;
  }
  const state = ctx.state as { onClose?: (() => void)[] };
  if (state.onClose) {
    state.onClose.push(fn);
    return;
  }
  const handlers = [fn];
  state.onClose = handlers;
  ctx.res.on('close', () => {
    for (const handler of handlers) handler();
  });
}
