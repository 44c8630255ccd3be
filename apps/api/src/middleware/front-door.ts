import type { Logger } from '@switchboard/logger';
import { methodNotAllowed } from '@switchboard/protocol';
import type { Context, Middleware, Next } from 'koa';
import { routePolicy } from '../route-policy.js';
import { answerError } from './error-handler.js';
import { requestContext } from './request-context.js';

export interface FrontDoorOptions {
  logger: Logger;
  /** /v1 metrics (v1-metrics.ts), when on. */
  countV1?: ((ctx: Context) => void) | undefined;
  /** The request's span (trace-requests.ts), when tracing is on: around all the rest. */
  trace?: Middleware | undefined;
}

/**
 * The first step of every request: what always runs, in one Koa step and one promise instead of
 * a step each. In order: the request context (id, the log line once the response is over), /v1
 * metrics, the span; then, under the error handler (any error below → the OpenAI error body),
 * `X-Content-Type-Options: nosniff`, the route policy's one look-up (which guard, rate limit and
 * body reader this request gets: route-policy.ts), the layers below, and the router's 405 (or 501)
 * for a known path with another method made JSON.
 */
export function frontDoor({ logger, countV1, trace }: FrontDoorOptions): Middleware {
  const startLog = requestContext(logger);
  const guarded = async (ctx: Context, next: Next) => {
    try {
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.state.policy = routePolicy(ctx.method, ctx.path);
      await next();
      if (ctx.status === 405 || ctx.status === 501) {
        const allow = ctx.response.get('Allow');
        throw methodNotAllowed(ctx.method, ctx.path, allow ? allow.split(/,\s*/) : []);
      }
    } catch (err) {
      answerError(ctx, err, logger);
    }
  };
  if (trace) {
    return (ctx, next) => {
      startLog(ctx);
      countV1?.(ctx);
      return trace(ctx, () => guarded(ctx, next));
    };
  }
  return (ctx, next) => {
    startLog(ctx);
    countV1?.(ctx);
    return guarded(ctx, next);
  };
}
