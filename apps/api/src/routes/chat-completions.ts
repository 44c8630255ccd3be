import type Router from '@koa/router';
import {
  type ChatCompletionRequest,
  chatCompletionRequestSchema,
  checkJsonDepth,
  formatParam,
  invalidRequest,
} from '@switchboard/protocol';
import { isAbort } from '@switchboard/providers';
import type { AppDeps } from '../deps.js';
import { clientSignal } from '../middleware/client-signal.js';
import { endSse, failSse, openSse, writeEvent } from '../sse.js';

export function chatCompletionsRoutes(router: Router, deps: AppDeps): void {
  router.post('/v1/chat/completions', async (ctx) => {
    const { limits } = deps.settings.config;
    checkJsonDepth(ctx.request.body, limits.maxJsonDepth);
    const request = parseRequest(ctx.request.body);
    if (request.messages.length > limits.maxMessages) {
      throw invalidRequest(
        `At most ${limits.maxMessages} messages are accepted in one request.`,
        'messages',
        'too_many_messages',
      );
    }
    ctx.state.model = request.model.slice(0, 200); // the log line stays one short line
    if (request.user) trackUser(deps, request.user);
    const call = { signal: clientSignal(ctx), requestId: ctx.state.requestId as string };

    if (!request.stream) {
      const completion = await deps.gateway.complete(request, call);
      ctx.state.model = completion.model;
      ctx.body = completion;
      return;
    }

    const stream = await deps.gateway.stream(request, call);
    ctx.state.model = stream.model;
    ctx.respond = false;
    openSse(ctx.res);
    try {
      for await (const chunk of stream.chunks) await writeEvent(ctx.res, chunk);
      endSse(ctx.res);
    } catch (err) {
      if (call.signal.aborted && isAbort(err)) return;
      if (!isAbort(err)) deps.logger.warn('stream failed', { request_id: call.requestId, error: (err as Error).message });
      failSse(ctx.res, err);
    }
  });
}

function parseRequest(body: unknown): ChatCompletionRequest {
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw invalidRequest('The request body must be a JSON object with "model" and "messages".');
  }
  const result = chatCompletionRequestSchema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const param = formatParam(issue.path);
  throw invalidRequest(param ? `Invalid value for '${param}': ${issue.message}` : issue.message, param, 'invalid_value');
}

/** Counted as an active session (written in the background: never delays or fails the request). */
function trackUser(deps: AppDeps, user: string): void {
  deps.sessions.touch(`api:${user}`);
}
