import type Router from '@koa/router';
import { responsesRequestSchema } from '@switchboard/protocol';
import { createResponse, streamResponse } from '@switchboard/providers';
import type { AppDeps } from '../deps.js';
import type { ApiClient } from '../middleware/api-key-auth.js';
import { checkMcpTools, createMcpResponse, mcpToolsOf, openMcpResponse } from '../services/responses-mcp.js';
import { restampResponse, restampResponseEvents } from '../services/restamp.js';
import { type V1CallDeps, v1Call } from '../services/v1-call.js';
import { oneEach } from '../sse.js';
import { parseBody, tooManyMessages } from './parse-body.js';

/** Responses events: named frames (`event: response.output_text.delta`), no `[DONE]`. */
const named = (event: { type?: unknown }) => String(event.type);

/**
 * POST /v1/responses: the OpenAI Responses API on every provider, translated onto chat
 * completions by @switchboard/providers (responses/), so routes, cooldowns, fallbacks, usage
 * and the cache work as they do for chat. `mcp` tools are run here (services/responses-mcp.ts):
 * such a request is never answered from the cache, its tools having side effects.
 */
export function responsesRoutes(router: Router, deps: V1CallDeps & Pick<AppDeps, 'settings' | 'tools' | 'mcpServers'>): void {
  router.post('/v1/responses', async (ctx) => {
    const { limits } = deps.settings.config;
    const request = parseBody(responsesRequestSchema, ctx.request.body, limits.maxJsonDepth, '"model" and "input"');
    if (Array.isArray(request.input) && request.input.length > limits.maxMessages)
      throw tooManyMessages(limits.maxMessages, 'input');
    const mcpTools = mcpToolsOf(request);
    const mcp =
      mcpTools.length > 0 ? { request, mcpTools, grants: (ctx.state.client as ApiClient | undefined)?.tools ?? [] } : null;
    if (mcp) checkMcpTools(mcpTools, mcp.grants, deps.mcpServers.names);
    await v1Call(ctx, deps, {
      endpoint: mcp ? null : 'responses',
      modelKind: 'chat',
      request,
      temperature: request.temperature,
      estimate: { prompt: [request.instructions, request.input], maxOutput: request.max_output_tokens },
      user: request.user,
      complete: (plan, call) =>
        mcp ? createMcpResponse(deps, mcp, plan, call) : createResponse(deps.gateway, request, call, plan),
      restamp: restampResponse,
      stream:
        request.stream === true
          ? {
              open: async (plan, call) => {
                const upstream = mcp
                  ? await openMcpResponse(deps, mcp, plan, call, true)
                  : await streamResponse(deps.gateway, request, call, plan);
                const format = { name: named, done: false, failure: (err: unknown) => upstream.fail(err) };
                const batches = 'batches' in upstream ? upstream.batches : oneEach(upstream.events);
                return { model: upstream.model, batches, format };
              },
              // A recorded stream ended complete: nothing can fail while it is sent again.
              replay: (events) => ({
                events: restampResponseEvents(events),
                format: { name: named, done: false, failure: () => [] },
              }),
            }
          : undefined,
    });
  });
}
