import type Router from '@koa/router';
import { chatCompletionRequestSchema, isPlainChatRequest, toErrorResponse } from '@switchboard/protocol';
import { chunkJson } from '@switchboard/providers';
import type { AppDeps } from '../deps.js';
import { restampChunks, restampCompletion } from '../services/restamp.js';
import { type V1CallDeps, v1Call } from '../services/v1-call.js';
import type { SseFormat } from '../sse.js';
import { parseBody, tooManyMessages } from './parse-body.js';

/**
 * Chat chunks: unnamed `data:` frames (a chunk's JSON as `chunkJson` has it), `[DONE]` at the end,
 * one `{"error":…}` frame on failure.
 */
const CHAT_SSE: SseFormat<Record<string, unknown>> = {
  json: chunkJson,
  done: true,
  failure: (err) => [toErrorResponse(err).body],
};

export function chatCompletionsRoutes(router: Router, deps: V1CallDeps & Pick<AppDeps, 'settings'>): void {
  router.post('/v1/chat/completions', async (ctx) => {
    const { limits } = deps.settings.config;
    const request = parseBody(
      chatCompletionRequestSchema,
      ctx.request.body,
      limits.maxJsonDepth,
      '"model" and "messages"',
      isPlainChatRequest,
    );
    if (request.messages.length > limits.maxMessages) throw tooManyMessages(limits.maxMessages, 'messages');
    await v1Call(ctx, deps, {
      endpoint: 'chat',
      modelKind: 'chat',
      request,
      temperature: request.temperature,
      estimate: { prompt: request.messages, maxOutput: request.max_completion_tokens ?? request.max_tokens },
      user: request.user,
      complete: (plan, call) => deps.gateway.complete(request, call, plan),
      restamp: restampCompletion,
      stream:
        request.stream === true
          ? {
              open: async (plan, call) => {
                const upstream = await deps.gateway.stream(request, call, plan);
                return { model: upstream.model, batches: upstream.batches, format: CHAT_SSE };
              },
              replay: (events) => ({ events: restampChunks(events), format: CHAT_SSE }),
            }
          : undefined,
    });
  });
}
