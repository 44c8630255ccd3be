import { randomUUID } from 'node:crypto';
import type { Logger } from '@switchboard/logger';
import type { Middleware } from 'koa';

const VALID_ID = /^[\w.:-]{1,128}$/;

/**
 * Gives each request an id (the client's `X-Request-Id` when it is sane), echoes it, and logs
 * one JSON line when the response is over — streams included. No bodies, no headers.
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
        logger.info('request', {
          method: ctx.method,
          path: ctx.path,
          status: ctx.res.headersSent ? ctx.res.statusCode : 499,
          ms: Math.round((performance.now() - started) * 100) / 100,
          model: ctx.state.model,
          request_id: requestId,
          // What a route adds to its line (a hook's name and the job it queued…).
          ...(ctx.state.log as Record<string, unknown> | undefined),
          ...(ctx.res.writableFinished ? {} : { aborted: true }),
        });
      });
    await next();
  };
}
