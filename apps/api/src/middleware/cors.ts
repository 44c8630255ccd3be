import type { Middleware } from 'koa';

/**
 * CORS for browser clients, off unless origins are configured (`["*"]` allows any). Preflight
 * requests are answered here; an origin not on the list gets no CORS headers, so the browser
 * blocks it.
 */
export function cors(origins: string[]): Middleware {
  const any = origins.includes('*');
  const allowed = new Set(origins);
  return async (ctx, next) => {
    const origin = ctx.get('origin');
    if (origins.length === 0 || !origin || !(any || allowed.has(origin))) return next();
    ctx.vary('Origin');
    ctx.set('Access-Control-Allow-Origin', any ? '*' : origin);
    ctx.set(
      'Access-Control-Expose-Headers',
      'X-Request-Id, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-Switchboard-Cache',
    );
    if (ctx.method === 'OPTIONS' && ctx.get('access-control-request-method')) {
      ctx.set('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
      ctx.set(
        'Access-Control-Allow-Headers',
        ctx.get('access-control-request-headers') || 'Authorization, Content-Type, X-Request-Id, Idempotency-Key',
      );
      ctx.set('Access-Control-Max-Age', '600');
      ctx.status = 204;
      return;
    }
    await next();
  };
}
