import { randomUUID } from 'node:crypto';
import type { Logger } from '@switchboard/logger';
import type { Middleware } from 'koa';
import { requestTimedOut } from '../request-timeouts.js';

const VALID_ID = /^[\w.:-]{1,128}$/;

/**
 * Gives each request an id (the client's `X-Request-Id` when it is sane), echoes it, and logs
 * one JSON line when the response is over — streams included. No bodies, no headers. A request
 * whose client hung up first is one info line `client closed request` with status 499 (408
 * when it was we who cut it, for sending too slowly).
 */
export function requestContext(logger: Logger): Middleware {
  return async (ctx, next) => {
    const given = ctx.get('x-request-id');
    const requestId = VALID_ID.test(given) ? given : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    const started = performance.now();
    if (logger.isInfoEnabled())
      ctx.res.once('close', () => {
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
    await next();
  };
}
