import type Router from '@koa/router';
import { embeddingsRequestSchema } from '@switchboard/protocol';
import type { AppDeps } from '../deps.js';
import { type V1CallDeps, v1Call } from '../services/v1-call.js';
import { parseBody } from './parse-body.js';

/**
 * POST /v1/embeddings for the providers' `embeddingModels` (and routes over them): floats or
 * base64, `dimensions` passed on, usage reported (counted when the upstream sends none).
 */
export function embeddingsRoutes(router: Router, deps: V1CallDeps & Pick<AppDeps, 'settings'>): void {
  router.post('/v1/embeddings', async (ctx) => {
    const request = parseBody(
      embeddingsRequestSchema,
      ctx.request.body,
      deps.settings.config.limits.maxJsonDepth,
      '"model" and "input"',
    );
    await v1Call(ctx, deps, {
      endpoint: 'embeddings',
      modelKind: 'embedding',
      request,
      // The same input gives the same vectors: embeddings are cached whatever the policy's temperature rule.
      temperature: 0,
      estimate: { prompt: request.input },
      complete: (plan, call) => deps.gateway.embed(request, call, plan),
    });
  });
}
