import type { Logger } from '@switchboard/logger';
import { rateLimitExceeded } from '@switchboard/protocol';
import type { RateLimiter } from '@switchboard/state';
import type { Context } from 'koa';

export interface RateLimitOptions {
  limiter: RateLimiter;
  logger: Logger;
  /** Which requests count, and against which subject and limit; null lets a request through uncounted. */
  subject: (ctx: Context) => { subject: string; limit: number } | null;
  /** `open`: a Redis failure lets the request through (and is logged); `closed`: it is refused. */
  onRedisError: 'open' | 'closed';
}

/**
 * 429 `rate_limit_exceeded` with `Retry-After` once a subject's budget for the minute is spent.
 * Returns the count of one request: a promise that settles once it is let through (rejected with
 * the 429), or undefined for a request that counts against nothing, which passes on at once.
 */
export function rateLimit(options: RateLimitOptions): (ctx: Context) => Promise<void> | undefined {
  let lastWarning = 0;
  const counted = async (ctx: Context, rule: { subject: string; limit: number }) => {
    let decision: Awaited<ReturnType<RateLimiter['hit']>>;
    try {
      decision = await options.limiter.hit(rule.subject, rule.limit);
    } catch (err) {
      if (options.onRedisError === 'closed') throw err;
      if (Date.now() - lastWarning > 10_000) {
        lastWarning = Date.now();
        options.logger.warn('rate limiter unavailable: letting requests through', { error: (err as Error).message });
      }
      return;
    }
    ctx.set('X-RateLimit-Limit', String(decision.limit));
    ctx.set('X-RateLimit-Remaining', String(decision.remaining));
    if (!decision.allowed) {
      throw rateLimitExceeded(
        `Rate limit reached: ${decision.limit} requests per minute. Try again in ${decision.resetSeconds} s.`,
        decision.resetSeconds,
      );
    }
  };
  // Not async: a request that counts against nothing passes on without a promise of its own.
  return (ctx) => {
    const rule = options.subject(ctx);
    return rule ? counted(ctx, rule) : undefined;
  };
}
