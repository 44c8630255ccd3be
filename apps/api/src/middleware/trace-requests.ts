import type { Tracing } from '@switchboard/tracing';
import type { Middleware } from 'koa';

const V1_PATH = /^\/v1\//i;
const HOOKS_PATH = /^\/hooks\//i;

/**
 * With tracing on: each /v1 request and each hook POST is a server span, active while the route
 * runs (its model call and the hook message's queuing are children), named by the route
 * template once it is known. Other paths (health, status, metrics) are not traced.
 */
export function traceRequests(tracing: Tracing): Middleware {
  return (ctx, next) => {
    // Case-insensitive, as the router matches.
    if (!V1_PATH.test(ctx.path) && !(ctx.method === 'POST' && HOOKS_PATH.test(ctx.path))) return next();
    const attributes = { 'http.request.method': ctx.method, 'url.path': ctx.path };
    return tracing.span(`${ctx.method} ${ctx.path}`, { kind: 'server', attributes }, async (span) => {
      try {
        await next();
      } finally {
        const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
        if (typeof route === 'string') span.updateName(`${ctx.method} ${route}`);
        span.setAttribute('http.response.status_code', ctx.status);
      }
    });
  };
}
