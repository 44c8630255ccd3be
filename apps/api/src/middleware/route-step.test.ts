import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Koa, { type Context, type Middleware } from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, routePolicy } from '../route-policy.js';
import { routeStep } from './route-step.js';

/** What the router leaves on a request, as the handler sees it. */
const seen = (ctx: Context) => {
  const routed = ctx as Context & Record<string, unknown>;
  return {
    route: routed._matchedRoute,
    matched: (routed.matched as { path: string }[]).map((layer) => layer.path),
    routeMatched: routed.routeMatched,
    params: routed.params,
    requestParams: (ctx.request as { params?: unknown }).params,
    captures: routed.captures,
    routerPath: routed.routerPath,
    router: routed.router !== undefined,
  };
};

/** Some of the table's routes, one with a middleware before its handler (the router's way only). */
function twinRouter() {
  const router = new Router();
  const handler: Middleware = (ctx) => {
    ctx.body = seen(ctx);
  };
  router.post('/v1/chat/completions', handler);
  router.get('/status', handler);
  router.get('/v1/models', handler);
  router.get('/v1/models/*id', handler);
  router.post('/v1/embeddings', (_ctx, next) => next(), handler);
  return router;
}

/** The app's order: the policy's look-up, the router's step, its 405s, the 404. */
function app(direct: boolean, searches: { count: number }) {
  const router = twinRouter();
  const koa = new Koa();
  koa.use((ctx, next) => {
    ctx.state.policy = routePolicy(ctx.method, ctx.path);
    return next();
  });
  koa.use(direct ? routeStep(router, ROUTES) : (router.routes() as unknown as Middleware));
  const match = router.match.bind(router);
  router.match = (path, method) => {
    searches.count++;
    return match(path, method);
  };
  koa.use(router.allowedMethods() as unknown as Middleware);
  koa.use((ctx) => {
    ctx.body = { unmatched: !ctx.matched?.length };
  });
  return koa;
}

const REQUESTS: [string, string][] = [
  ['POST', '/v1/chat/completions'],
  ['POST', '/V1/Chat/Completions/'],
  ['GET', '/status'],
  ['HEAD', '/status'],
  ['GET', '/v1/models'],
  ['GET', '/v1/models/mock/gpt-4o-mini'],
  ['POST', '/v1/embeddings'],
  ['GET', '/v1/chat/completions'],
  ['POST', '/v1/nowhere'],
];

describe('the route step', () => {
  const servers: ReturnType<Koa['listen']>[] = [];
  const searches = { router: { count: 0 }, direct: { count: 0 } };
  const base: Record<'router' | 'direct', string> = { router: '', direct: '' };
  beforeAll(async () => {
    for (const which of ['router', 'direct'] as const) {
      const server = app(which === 'direct', searches[which]).listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      servers.push(server);
      base[which] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    }
  });
  afterAll(() => {
    for (const server of servers) server.close();
  });

  const answer = async (which: 'router' | 'direct', method: string, path: string) => {
    const before = searches[which].count;
    const response = await fetch(base[which] + path, { method });
    const text = await response.text();
    return {
      status: response.status,
      allow: response.headers.get('allow'),
      body: text && JSON.parse(text),
      searched: searches[which].count > before,
    };
  };

  it('leaves on every request what the router leaves, and answers as it does', async () => {
    for (const [method, path] of REQUESTS) {
      const { searched: _a, ...byRouter } = await answer('router', method, path);
      const { searched: _b, ...direct } = await answer('direct', method, path);
      expect({ method, path, ...direct }).toEqual({ method, path, ...byRouter });
    }
  });

  it('calls a route without parameters without the router’s search, and only such a route', async () => {
    const searched = async (method: string, path: string) => (await answer('direct', method, path)).searched;
    expect(await searched('POST', '/v1/chat/completions')).toBe(false);
    expect(await searched('POST', '/V1/Chat/Completions/')).toBe(false);
    expect(await searched('HEAD', '/status')).toBe(false);
    expect(await searched('GET', '/v1/models/mock/gpt-4o-mini')).toBe(true); // parameters
    expect(await searched('POST', '/v1/embeddings')).toBe(true); // a middleware before the handler
    expect(await searched('GET', '/v1/chat/completions')).toBe(true); // another method: the router's 405
    expect(await searched('POST', '/v1/nowhere')).toBe(true);
  });
});
