import type Router from '@koa/router';
import { embeddingsRequestSchema } from '@switchboard/protocol';
import type { AppDeps } from '../deps.js';
import { clientSignal } from '../middleware/client-signal.js';
import { meterRequest } from '../services/metering.js';
import { parseBody } from './parse-body.js';

/**
 * POST /v1/embeddings for the providers' `embeddingModels` (and routes over them): floats or
 * base64, `dimensions` passed on, usage reported (counted when the upstream sends none).
 */
export function embeddingsRoutes(router: Router, deps: AppDeps): void {
  router.post('/v1/embeddings', async (ctx) => {
    const request = parseBody(
      embeddingsRequestSchema,
      ctx.request.body,
      deps.settings.config.limits.maxJsonDepth,
      '"model" and "input"',
    );
    ctx.state.model = request.model.slice(0, 200);
    const onUsage = await meterRequest(ctx, deps, { model: request.model, kind: 'embedding', prompt: request.input });
    const call = { signal: clientSignal(ctx), requestId: ctx.state.requestId as string, onUsage };
    // The same input gives the same vectors: embeddings are cached whatever the policy's temperature rule.
    const cached = await deps.cache?.lookup(ctx, {
      kind: 'embeddings',
      request: { ...request, model: deps.gateway.routes.target(request.model, 'embedding').name },
      stream: false,
      temperature: 0,
    });
    const body = cached?.hit && 'body' in cached.hit ? cached.hit.body : await deps.gateway.embed(request, call);
    if (cached && !cached.hit) deps.cache?.save(cached, { body });
    if (typeof body.model === 'string') ctx.state.model = body.model;
    ctx.body = body;
  });
}
