import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appRouter } from './app.js';
import { createDeps } from './deps.js';
import { type Guard, ROUTES, type RouteEntry } from './route-policy.js';
import { BULL_BOARD_PATH } from './routes/bull-board.js';
import { startGateway, type TestGateway } from './test-support/start-gateway.js';

const HOOK_TOKEN = 'policy-hook-token-0123456';
const ADMIN_KEY = 'policy-admin-key-0123456789';

/** A request path for a route: the generic hook `ops` for `:name`, `x` for any other parameter. */
const sample = (path: string) => path.replace(':name', 'ops').replace(/[:*]\w+/g, 'x');
/** `/hooks/:name` as OpenAPI writes it. */
const openApiPath = (path: string) => path.replace(/[:*](\w+)/g, '{$1}');
const name = (route: RouteEntry) => `${route.method} ${route.path}`;

/** The same path as a client may write it and the router still serves: its first segment in capitals, a trailing slash. */
const spellings = (path: string) => [path, `${path}/`, path.replace(/^\/[^/]+/, (segment) => segment.toUpperCase())];

const call = (gateway: TestGateway, route: RouteEntry, path: string) =>
  fetch(`${gateway.url}${path}`, {
    method: route.method,
    ...(route.method === 'POST' ? { headers: { 'content-type': 'application/json' }, body: '{}' } : {}),
  });

describe('the route policy table', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startGateway({
      config: {
        apiKeys: ['policy-api-key-0123456789'],
        adminKeys: [ADMIN_KEY],
        hooks: { ops: { type: 'generic', token: HOOK_TOKEN } },
      },
    });
  });
  afterAll(async () => gateway?.close());

  it('names every route the router serves, and no route it does not', () => {
    const deps = createDeps(gateway.settings);
    try {
      const served = new Set<string>([`GET ${BULL_BOARD_PATH}`]); // mounted beside the router
      for (const layer of appRouter(deps).stack) {
        for (const method of layer.methods) if (method !== 'HEAD') served.add(`${method} ${String(layer.path)}`);
      }
      expect([...served].sort()).toEqual(ROUTES.map(name).sort());
    } finally {
      void deps.close();
    }
  });

  it('gives each operation of /openapi.json the security of its route’s guard', async () => {
    const expected: Record<Guard, unknown[]> = {
      public: [],
      handshake: [],
      apiKey: [{ apiKey: [] }],
      operator: [{ adminKey: [] }],
      boardLogin: [{ adminBrowser: [] }],
      hook: [{ hookToken: [] }],
    };
    // biome-ignore lint/suspicious/noExplicitAny: a parsed OpenAPI document, walked by path
    const document = (await (await fetch(`${gateway.url}/openapi.json`)).json()) as any;
    for (const route of ROUTES) {
      const operation = document.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
      expect({ route: name(route), security: operation?.security }).toEqual({
        route: name(route),
        security: expected[route.guard],
      });
    }
  });

  it('asks a caller without credentials for what each route’s guard names, however the path is spelled', async () => {
    for (const route of ROUTES) {
      for (const path of spellings(sample(route.path))) {
        const res = await call(gateway, route, path);
        const seen = {
          request: `${route.method} ${path}`,
          status: res.status,
          code: undefined as unknown,
          login: res.headers.get('www-authenticate'),
        };
        if (res.headers.get('content-type')?.startsWith('application/json'))
          seen.code = ((await res.json()) as { error?: { code?: unknown } }).error?.code;
        else await res.arrayBuffer();
        const want = { request: seen.request };
        switch (route.guard) {
          case 'apiKey':
            expect(seen).toEqual({ ...want, status: 401, code: 'invalid_api_key', login: null });
            break;
          case 'operator':
            expect(seen).toEqual({ ...want, status: 401, code: 'invalid_admin_key', login: null });
            break;
          case 'boardLogin':
            expect(seen).toMatchObject({
              ...want,
              status: 401,
              code: 'invalid_admin_key',
              login: expect.stringMatching(/^Basic /),
            });
            break;
          case 'hook': // the generic hook's own check: its token
            expect(seen).toMatchObject({ ...want, status: 401 });
            expect(seen.code).not.toMatch(/invalid_(api|admin)_key/);
            break;
          case 'handshake': // a generic hook has none: 405, with no key asked for
          case 'public':
            expect(seen.status, seen.request).not.toBe(401);
            expect(seen.status, seen.request).not.toBe(403);
            break;
        }
      }
    }
  });

  it('serves each route once its guard’s credentials are given', async () => {
    const credentials: Partial<Record<Guard, string>> = {
      apiKey: 'Bearer policy-api-key-0123456789',
      operator: `Bearer ${ADMIN_KEY}`,
      boardLogin: `Basic ${Buffer.from(`admin:${ADMIN_KEY}`).toString('base64')}`,
      hook: `Bearer ${HOOK_TOKEN}`,
    };
    for (const route of ROUTES) {
      const authorization = credentials[route.guard];
      const res = await fetch(`${gateway.url}${sample(route.path)}`, {
        method: route.method,
        headers: {
          ...(authorization ? { authorization } : {}),
          ...(route.method === 'POST' ? { 'content-type': 'application/json' } : {}),
        },
        ...(route.method === 'POST' ? { body: route.path === '/hooks/:name' ? '{"from":"policy","text":"hi"}' : '{}' } : {}),
      });
      await res.arrayBuffer();
      expect({ route: name(route), status: res.status }).not.toMatchObject({ status: 401 });
      expect({ route: name(route), status: res.status }).not.toMatchObject({ status: 403 });
    }
  });
});

describe('the rate limits of the route policy table', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startGateway({
      config: {
        rateLimit: { requestsPerMinute: 1000 },
        hooks: { ops: { type: 'generic', token: HOOK_TOKEN, rateLimit: { requestsPerMinute: 1000 } } },
      },
    });
  });
  afterAll(async () => gateway?.close());

  it('counts a request against the subject its route names, and no other route’s requests', async () => {
    for (const route of ROUTES) {
      for (const path of spellings(sample(route.path))) {
        const res = await call(gateway, route, path);
        await res.arrayBuffer();
        expect({ request: `${route.method} ${path}`, counted: res.headers.get('x-ratelimit-limit') !== null }).toEqual({
          request: `${route.method} ${path}`,
          counted: route.rateLimit !== 'none',
        });
      }
    }
  });
});
