import type Router from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import type { PolicyMatch, RouteEntry } from '../route-policy.js';

/** What @koa/router leaves on a request it routed, read by metrics, tracing and the 404 step. */
interface Routed {
  matched?: unknown[];
  router?: Router;
  routeMatched?: boolean;
  captures?: string[];
  params?: Record<string, string>;
  routerPath?: string;
  routerName?: string | undefined;
  _matchedRoute?: string;
  _matchedRouteName?: string;
}

/**
 * The router's step. A request whose route has no parameters (every /v1 call) was found by the
 * route policy's map look-up already (`ctx.state.policy.route`): its handler is called at once,
 * with what the router would have set on the request (`_matchedRoute` for metrics labels and span
 * names, `matched`, `params`…), instead of the router trying its routes' regexps one after another
 * and composing the route's chain. Only a route the router answers with that one handler alone is
 * taken so (looked up at start-up with the router's own `match`); anything else — routes with
 * parameters, 404s, 405s — goes through the router as before.
 */
export function routeStep(router: Router, routes: readonly RouteEntry[]): Middleware {
  const dispatch = router.routes() as unknown as Middleware;
  const direct = new Map<string, Middleware>();
  for (const { method, path } of routes) {
    if (/[:*]/.test(path)) continue;
    const found = router.match(path, method);
    const layer = found.pathAndMethod[0];
    // One layer for the path (no other method's, no router.use), with the handler alone (no param()).
    if (found.path.length !== 1 || found.pathAndMethod.length !== 1 || !layer || layer.stack.length !== 1) continue;
    if (typeof layer.path !== 'string') continue;
    const handler = layer.stack[0] as unknown as Middleware;
    const template = layer.path;
    const name = layer.name;
    const matched = found.path;
    direct.set(`${method} ${path}`, (ctx: Context, next: Next) => {
      const routed = ctx as Context & Routed;
      if (routed.matched) routed.matched.push(...matched);
      else routed.matched = [...matched];
      routed.router = router;
      routed.routeMatched = true;
      routed.captures = [];
      const params = { ...routed.params };
      (ctx.request as { params?: Record<string, string> }).params = params;
      routed.params = params;
      routed.routerPath = template;
      routed.routerName = name || undefined;
      routed._matchedRoute = template;
      if (name) routed._matchedRouteName = name;
      return handler(ctx, next);
    });
  }
  return (ctx, next) => {
    const route = (ctx.state.policy as PolicyMatch | undefined)?.route;
    const handler = route === undefined ? undefined : direct.get(route);
    return handler ? handler(ctx, next) : dispatch(ctx, next);
  };
}
