import Router from '@koa/router';
import { methodNotAllowed, notFound } from '@switchboard/protocol';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import type { AppDeps } from './deps.js';
import { errorHandler } from './middleware/error-handler.js';
import { requestContext } from './middleware/request-context.js';
import { chatCompletionsRoutes } from './routes/chat-completions.js';
import { healthRoutes } from './routes/health.js';
import { hooksRoutes } from './routes/hooks.js';
import { modelsRoutes } from './routes/models.js';
import { statusRoutes } from './routes/status.js';

/** Builds the Koa app from its dependencies; never listens (main.ts and tests do). */
export function createApp(deps: AppDeps): Koa {
  const app = new Koa();
  app.silent = true; // errorHandler logs what matters; Koa's own printer would duplicate it

  const router = new Router();
  chatCompletionsRoutes(router, deps);
  modelsRoutes(router, deps);
  healthRoutes(router, deps);
  statusRoutes(router, deps);
  hooksRoutes(router, deps);

  app.use(requestContext(deps.logger));
  app.use(errorHandler(deps.logger));
  app.use(async (ctx, next) => {
    await next();
    // The router answers a known path with the wrong method by 405 (or 501): make it JSON.
    if (ctx.status === 405 || ctx.status === 501) {
      const allow = ctx.response.get('Allow');
      throw methodNotAllowed(ctx.method, ctx.path, allow ? allow.split(/,\s*/) : []);
    }
  });
  const parseJson = koaBody({ json: true, jsonLimit: '1mb', text: false, urlencoded: false, multipart: false, jsonStrict: true });
  // Hooks read their raw bytes themselves: platform signatures are computed over them.
  app.use((ctx, next) => (ctx.path.startsWith('/hooks/') ? next() : parseJson(ctx, next)));
  app.use(router.routes());
  app.use(router.allowedMethods());
  app.use((ctx) => {
    if (!ctx.matched?.length) throw notFound(`Invalid URL (${ctx.method} ${ctx.path}).`, 'unknown_url');
  });
  return app;
}
