import Router from '@koa/router';
import { notFound } from '@switchboard/protocol';
import Koa, { type Context, type Middleware, type Next } from 'koa';
import type { AppDeps } from './deps.js';
import { adminAuth } from './middleware/admin-auth.js';
import { type ApiClient, apiKeyAuth } from './middleware/api-key-auth.js';
import { cors } from './middleware/cors.js';
import { frontDoor } from './middleware/front-door.js';
import { readJsonBody, wantsJsonBody } from './middleware/json-body.js';
import { multipartBody } from './middleware/multipart-body.js';
import { rateLimit } from './middleware/rate-limit.js';
import { routeStep } from './middleware/route-step.js';
import { traceRequests } from './middleware/trace-requests.js';
import { v1Metrics } from './middleware/v1-metrics.js';
import { type PolicyMatch, ROUTES } from './route-policy.js';
import { adminRoutes } from './routes/admin.js';
import { adminUsageRoutes } from './routes/admin-usage.js';
import { audioTranscriptionsRoutes } from './routes/audio-transcriptions.js';
import { bullBoard } from './routes/bull-board.js';
import { chatCompletionsRoutes } from './routes/chat-completions.js';
import { dashboardRoutes } from './routes/dashboard.js';
import { embeddingsRoutes } from './routes/embeddings.js';
import { healthRoutes } from './routes/health.js';
import { hooksRoutes } from './routes/hooks.js';
import { metricsRoutes } from './routes/metrics.js';
import { modelsRoutes } from './routes/models.js';
import { openApiRoutes } from './routes/openapi.js';
import { responsesRoutes } from './routes/responses.js';
import { statusRoutes } from './routes/status.js';

/**
 * Every route the app serves (but Bull Board, mounted beside it); /openapi.json lists them all, and
 * route-policy.ts says who may call each.
 */
export function appRouter(deps: AppDeps): Router {
  const router = new Router();
  chatCompletionsRoutes(router, deps);
  responsesRoutes(router, deps);
  embeddingsRoutes(router, deps);
  audioTranscriptionsRoutes(router, deps);
  modelsRoutes(router, deps);
  healthRoutes(router, deps);
  statusRoutes(router, deps);
  hooksRoutes(router, deps);
  adminRoutes(router, deps);
  adminUsageRoutes(router, deps);
  dashboardRoutes(router);
  openApiRoutes(router, deps);
  metricsRoutes(router, deps);
  return router;
}

/** Builds the Koa app from its dependencies; never listens (main.ts and tests do). */
export function createApp(deps: AppDeps): Koa {
  const { config } = deps.settings;
  const app = new Koa({ proxy: config.trustProxy });
  app.silent = true; // the front door's error handler logs what matters; Koa's own printer would duplicate it

  const router = appRouter(deps);

  // Each step in Koa's chain costs a request a closure call and a promise: what always runs is one
  // step (the front door), a route policy's guard, rate limit and body reader another.
  app.use(
    frontDoor({
      logger: deps.logger,
      countV1: deps.metrics && v1Metrics(deps.metrics, deps.gateway),
      trace: deps.tracing && traceRequests(deps.tracing),
    }),
  );
  if (config.cors.origins.length) app.use(cors(config.cors.origins)); // left out when it has nothing to do
  app.use(policyStep(deps));
  app.use(routeStep(router, ROUTES)); // a route without parameters straight from the policy's look-up
  app.use(router.allowedMethods());
  app.use((ctx) => {
    if (!ctx.matched?.length) throw notFound(`Invalid URL (${ctx.method} ${ctx.path}).`, 'unknown_url');
  });
  return app;
}

/**
 * What the request's route policy (`ctx.state.policy`, looked up by the front door) asks, in this
 * order: the API-key guard (only when keys are set), the rate limit (Redis, one script; per key or
 * IP, or the hook's own), the operator guard (admin keys: /admin/*, /metrics; Bull Board its own
 * login), then the body: JSON (json-body.ts, 415 for other types), multipart (the one route that
 * takes a file), or none where the route reads its own (hooks, whose signatures cover the raw
 * bytes; Bull Board). One step, a promise only where something is waited for.
 */
function policyStep(deps: AppDeps): Middleware {
  const { config } = deps.settings;
  const apiKey = config.apiKeys.length ? apiKeyAuth(config.apiKeys) : undefined;
  const count = rateLimit({
    limiter: deps.rateLimiter,
    logger: deps.logger,
    onRedisError: 'open', // the facade never waits on Redis; a hook without Redis answers 503 anyway
    subject: (ctx: Context) => {
      const { rateLimit: counted, params } = ctx.state.policy as PolicyMatch;
      if (counted === 'hook') {
        // A hook's own budget, all senders together.
        const hook = String(params.name);
        const limit = deps.hooks.get(hook)?.config.rateLimit?.requestsPerMinute;
        return limit ? { subject: `hook:${hook}`, limit } : null;
      }
      if (counted !== 'client') return null;
      const client = ctx.state.client as ApiClient | undefined;
      const limit = client?.requestsPerMinute ?? config.rateLimit?.requestsPerMinute;
      if (!limit) return null;
      return { subject: client ? `key:${client.id}` : `ip:${ctx.ip}`, limit };
    },
  });
  const apiKeysSet = config.apiKeys.length > 0;
  const operator = adminAuth(config.adminKeys, apiKeysSet);
  const boardLogin = adminAuth(config.adminKeys, apiKeysSet, { browserLogin: true });
  const board = bullBoard(deps);
  const parseMultipart = multipartBody(config.limits.maxAudioBytes);
  const { maxBodyBytes } = config.limits;

  const afterCount = (ctx: Context, next: Next) => {
    const { guard, body } = ctx.state.policy as PolicyMatch;
    if (guard === 'boardLogin') {
      boardLogin(ctx);
      return board(ctx, next); // Bull Board, mounted on its area
    }
    if (guard === 'operator') operator(ctx);
    const method = ctx.method;
    if (body === 'own' || (method !== 'POST' && method !== 'PUT' && method !== 'PATCH')) return next();
    if (body === 'multipart') return parseMultipart(ctx, next);
    if (!wantsJsonBody(ctx)) return next();
    return readJsonBody(ctx.req, maxBodyBytes).then((parsed) => {
      ctx.request.body = parsed;
      return next();
    });
  };
  return (ctx, next) => {
    if (apiKey && (ctx.state.policy as PolicyMatch).guard === 'apiKey') apiKey(ctx);
    const counting = count(ctx);
    return counting ? counting.then(() => afterCount(ctx, next)) : afterCount(ctx, next);
  };
}
