import { match } from 'path-to-regexp';
import { BULL_BOARD_PATH } from './routes/bull-board.js';

/**
 * Who may call a route, and who checks:
 * - `public`: anyone;
 * - `apiKey`: `Authorization: Bearer <API key>` while `apiKeys` are set (middleware/api-key-auth.ts);
 * - `operator`: an admin key (middleware/admin-auth.ts);
 * - `boardLogin`: Bull Board's login: an admin key, also as HTTP Basic's password (admin-auth.ts `browserLogin`);
 * - `hook`: the hook itself, after routing: a generic hook's token, the platform's signature (channels);
 * - `handshake`: the hook's channel, by a verify token in the query (WhatsApp's subscription).
 */
export type Guard = 'public' | 'apiKey' | 'operator' | 'boardLogin' | 'hook' | 'handshake';

/**
 * What a request counts against, per minute (middleware/rate-limit.ts): `client` is the API key's
 * `requestsPerMinute`, else `rateLimit.requestsPerMinute` per key (per IP without one); `hook` is
 * the hook's own `rateLimit`, all its senders together.
 */
export type RateLimitSubject = 'none' | 'client' | 'hook';

/**
 * Who reads the body: `json` is the app's JSON parser (415 for other types, on POST, PUT and PATCH);
 * `multipart` is multipart/form-data with one file within `limits.maxAudioBytes`
 * (middleware/multipart-body.ts; only the route that takes a file); `own` is the route's business
 * (hooks read their raw bytes, which platform signatures cover; Bull Board parses its own).
 */
export type BodyReader = 'json' | 'multipart' | 'own';

export interface RoutePolicy {
  guard: Guard;
  rateLimit: RateLimitSubject;
  body: BodyReader;
}

export interface RouteEntry extends RoutePolicy {
  method: 'GET' | 'POST' | 'DELETE';
  /** As @koa/router writes it: `/hooks/:name`, `/v1/models/*id`. */
  path: string;
}

/** A request's policy, and the route's parameters when a parametrised route matched. */
export interface PolicyMatch extends RoutePolicy {
  params: Readonly<Record<string, string | string[]>>;
  /**
   * The route, as the table writes it (`POST /v1/chat/completions`), when one without parameters
   * matched: the route step (middleware/route-step.ts) calls its handler without the router's search.
   */
  route?: string;
}

const facade = { guard: 'apiKey', rateLimit: 'client', body: 'json' } as const;
const operator = { guard: 'operator', rateLimit: 'none', body: 'json' } as const;
const open = { guard: 'public', rateLimit: 'none', body: 'json' } as const;
const board = { guard: 'boardLogin', rateLimit: 'none', body: 'own' } as const;
const hookRead = { guard: 'hook', rateLimit: 'none', body: 'own' } as const;

/**
 * Every route the app serves, with its policy: app.ts's middleware reads it (guard, rate limit,
 * body) and /openapi.json derives each operation's `security` from it. A test holds it to the
 * router's routes.
 */
export const ROUTES: readonly RouteEntry[] = [
  { method: 'POST', path: '/v1/chat/completions', ...facade },
  { method: 'POST', path: '/v1/responses', ...facade },
  { method: 'POST', path: '/v1/embeddings', ...facade },
  { method: 'POST', path: '/v1/audio/transcriptions', ...facade, body: 'multipart' },
  { method: 'GET', path: '/v1/models', ...facade },
  { method: 'GET', path: '/v1/models/*id', ...facade },
  { method: 'GET', path: '/status', ...facade },
  { method: 'POST', path: '/hooks/:name', guard: 'hook', rateLimit: 'hook', body: 'own' },
  { method: 'GET', path: '/hooks/:name', guard: 'handshake', rateLimit: 'none', body: 'own' },
  { method: 'GET', path: '/hooks/:name/jobs/:id', ...hookRead },
  { method: 'GET', path: '/hooks/:name/jobs/:id/stream', ...hookRead },
  { method: 'POST', path: '/hooks/:name/jobs/:id/approval', guard: 'hook', rateLimit: 'none', body: 'json' },
  { method: 'GET', path: '/health', ...open },
  { method: 'GET', path: '/ready', ...open },
  { method: 'GET', path: '/metrics', ...operator },
  { method: 'GET', path: '/admin/status', ...operator },
  { method: 'GET', path: '/admin/activity', ...operator },
  { method: 'GET', path: '/admin/usage', ...operator },
  { method: 'GET', path: '/admin/jobs', ...operator },
  { method: 'POST', path: '/admin/jobs/:id/retry', ...operator },
  { method: 'POST', path: '/admin/hooks/:name/retry', ...operator },
  { method: 'GET', path: '/admin/pairing', ...operator },
  { method: 'POST', path: '/admin/pairing/:code/approve', ...operator },
  { method: 'POST', path: '/admin/pairing/:code/deny', ...operator },
  { method: 'DELETE', path: '/admin/hooks/:name/users/:id', ...operator },
  // Mounted beside the router (its pages and API under this path: AREAS below).
  { method: 'GET', path: BULL_BOARD_PATH, ...board },
  { method: 'GET', path: '/dashboard', ...open },
  { method: 'GET', path: '/dashboard/:file', ...open },
  { method: 'GET', path: '/openapi.json', ...open },
];

/**
 * The policy of a request no route matches (a 404, another method's 405, a CORS preflight): its
 * area's, so an unknown /v1 path still asks for the key before its 404. `/x` is that path alone,
 * `/x/*` anything below it; the first area that holds the path wins, else `public`.
 */
export const AREAS: readonly { paths: readonly string[]; policy: RoutePolicy }[] = [
  { paths: ['/v1', '/v1/*', '/status'], policy: facade },
  { paths: [BULL_BOARD_PATH, `${BULL_BOARD_PATH}/*`], policy: board },
  { paths: ['/admin', '/admin/*', '/metrics'], policy: operator },
  { paths: ['/hooks/*'], policy: hookRead },
];

const NO_PARAMS: PolicyMatch['params'] = Object.freeze({});
const matchOf = (policy: RoutePolicy, route?: string): PolicyMatch =>
  Object.freeze(route === undefined ? { ...policy, params: NO_PARAMS } : { ...policy, params: NO_PARAMS, route });

/**
 * Paths as the router compares them: case-insensitive, one trailing slash allowed (@koa/router's
 * defaults), so `/STATUS/` is guarded as `/status` is: the router serves both.
 */
const withoutSlash = (lower: string) => (lower.length > 1 && lower.endsWith('/') ? lower.slice(0, -1) : lower);
const firstSegment = (lower: string) => {
  const slash = lower.indexOf('/', 1);
  return slash === -1 ? lower : lower.slice(0, slash);
};

const staticRoutes = new Map<string, PolicyMatch>();
/** Parametrised routes by their first segment (`/hooks`): a request tries only its own few. */
const parametrised = new Map<string, { method: string; match: ReturnType<typeof match>; policy: RoutePolicy }[]>();
for (const { method, path, ...policy } of ROUTES) {
  if (!/[:*]/.test(path)) {
    staticRoutes.set(`${method} ${withoutSlash(path.toLowerCase())}`, matchOf(policy, `${method} ${path}`));
    continue;
  }
  const segment = firstSegment(path.toLowerCase());
  const list = parametrised.get(segment) ?? [];
  // The router's options: not case-sensitive, an optional trailing slash; parameters as written.
  list.push({ method, match: match(path, { decode: false, sensitive: false, trailing: true, end: true }), policy });
  parametrised.set(segment, list);
}
const areas = AREAS.map(({ paths, policy }) => ({
  exact: paths.filter((path) => !path.endsWith('/*')),
  under: paths.filter((path) => path.endsWith('/*')).map((path) => path.slice(0, -1)),
  policy: matchOf(policy),
}));
const PUBLIC = matchOf(open);

/**
 * The policy of one request: a map look-up for the routes without parameters (every /v1 call),
 * else the few parametrised routes of its first segment, else its area. HEAD is GET, as the router
 * answers it.
 */
export function routePolicy(method: string, path: string): PolicyMatch {
  const verb = method === 'HEAD' ? 'GET' : method;
  const lower = path.toLowerCase();
  const exact = withoutSlash(lower);
  const known = staticRoutes.get(`${verb} ${exact}`);
  if (known) return known;
  for (const route of parametrised.get(firstSegment(lower)) ?? []) {
    if (route.method !== verb) continue;
    const found = route.match(path);
    if (found) return { ...route.policy, params: found.params as PolicyMatch['params'] };
  }
  for (const area of areas) {
    if (area.exact.includes(exact) || area.under.some((prefix) => lower.startsWith(prefix))) return area.policy;
  }
  return PUBLIC;
}
