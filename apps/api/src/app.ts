import Router from '@koa/router';
import { methodNotAllowed, notFound } from '@switchboard/protocol';
import Koa, { type Context } from 'koa';
import { koaBody } from 'koa-body';
import type { AppDeps } from './deps.js';
import { adminAuth } from './middleware/admin-auth.js';
import { type ApiClient, apiKeyAuth } from './middleware/api-key-auth.js';
import { cors } from './middleware/cors.js';
import { errorHandler, unreadableBody } from './middleware/error-handler.js';
import { requireJsonContentType } from './middleware/json-guards.js';
import { multipartBody } from './middleware/multipart-body.js';
import { rateLimit } from './middleware/rate-limit.js';
import { requestContext } from './middleware/request-context.js';
import { traceRequests } from './middleware/trace-requests.js';
import { v1Metrics } from './middleware/v1-metrics.js';
import { type PolicyMatch, routePolicy } from './route-policy.js';
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
  app.silent = true; // errorHandler logs what matters; Koa's own printer would duplicate it

  const router = appRouter(deps);

  app.use(requestContext(deps.logger));
  if (deps.metrics) app.use(v1Metrics(deps.metrics, deps.gateway));
  if (deps.tracing) app.use(traceRequests(deps.tracing));
  app.use(errorHandler(deps.logger));
  app.use(async (ctx, next) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    await next();
    // The router answers a known path with the wrong method by 405 (or 501): make it JSON.
    if (ctx.status === 405 || ctx.status === 501) {
      const allow = ctx.response.get('Allow');
      throw methodNotAllowed(ctx.method, ctx.path, allow ? allow.split(/,\s*/) : []);
    }
  });
  app.use((ctx, next) => {
    // One look-up: which guard, rate limit and body reader this request gets (route-policy.ts).
    ctx.state.policy = routePolicy(ctx.method, ctx.path);
    return next();
  });
  const policy = (ctx: Context) => ctx.state.policy as PolicyMatch;
  // Layers with nothing to do are left out rather than asked on every request (each is a step,
  // a closure and a promise per request in Koa's chain).
  if (config.cors.origins.length) app.use(cors(config.cors.origins));
  if (config.apiKeys.length) {
    const apiKey = apiKeyAuth(config.apiKeys); // asked only where the route policy's guard is apiKey
    app.use((ctx, next) => (policy(ctx).guard === 'apiKey' ? apiKey(ctx, next) : next()));
  }
  app.use(
    rateLimit({
      limiter: deps.rateLimiter,
      logger: deps.logger,
      onRedisError: 'open', // the facade never waits on Redis; a hook without Redis answers 503 anyway
      subject: (ctx: Context) => {
        const { rateLimit: counted, params } = policy(ctx);
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
    }),
  );
  const apiKeysSet = config.apiKeys.length > 0;
  const operator = adminAuth(config.adminKeys, apiKeysSet);
  const boardLogin = adminAuth(config.adminKeys, apiKeysSet, { browserLogin: true });
  const board = bullBoard(deps);
  app.use((ctx, next) => {
    const { guard } = policy(ctx);
    if (guard === 'boardLogin') return boardLogin(ctx, () => board(ctx, next)); // Bull Board, mounted on its area
    return guard === 'operator' ? operator(ctx, next) : next();
  });
  const parseJson = koaBody({
    json: true,
    jsonLimit: config.limits.maxBodyBytes,
    text: false,
    urlencoded: false,
    multipart: false,
    jsonStrict: true,
    onError: (err) => {
      throw unreadableBody(err);
    },
  });
  const parseMultipart = multipartBody(config.limits.maxAudioBytes);
  app.use((ctx, next) => {
    // Hooks read their raw bytes themselves (platform signatures are computed over them), Bull Board its own.
    const { body } = policy(ctx);
    if (body === 'own' || !['POST', 'PUT', 'PATCH'].includes(ctx.method)) return next();
    if (body === 'multipart') return parseMultipart(ctx, next); // the one route that takes a file
    requireJsonContentType(ctx);
    return parseJson(ctx, next);
  });
  app.use(router.routes());
  app.use(router.allowedMethods());
  app.use((ctx) => {
    if (!ctx.matched?.length) throw notFound(`Invalid URL (${ctx.method} ${ctx.path}).`, 'unknown_url');
  });
  return app;
}
