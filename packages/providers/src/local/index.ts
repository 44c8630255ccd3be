import type { ChatCompletionRequest } from '@switchboard/protocol';
import type { CallContext, Provider, ProviderChunk, ProviderCompletion } from '../provider.js';
import { countPromptTokens, makeUsage } from '../usage.js';
import { decodeTokens, echoPieces, echoReply } from './echo.js';

/**
 * The built-in provider `local`, serving `local/echo` with no network at all: for wiring tests
 * and first runs, never for real answers.
 */
export class LocalProvider implements Provider {
  readonly name = 'local';
  readonly models = ['echo'] as const;
  readonly embeddingModels = [] as const;
  readonly audioModels = [] as const;

  async complete(request: ChatCompletionRequest, _model: string, _ctx: CallContext): Promise<ProviderCompletion> {
    const { tokens, finishReason } = echoReply(request);
    const content = decodeTokens(tokens);
    const n = request.n ?? 1;
    return {
      choices: Array.from({ length: n }, (_, index) => ({
        index,
        message: { role: 'assistant' as const, content },
        finish_reason: finishReason,
      })),
      usage: makeUsage(countPromptTokens(request.messages), tokens.length * n),
    };
  }

  async stream(request: ChatCompletionRequest, _model: string, ctx: CallContext): Promise<AsyncIterable<ProviderChunk[]>> {
    const { tokens, finishReason } = echoReply(request);
    const n = request.n ?? 1;
    const usage = makeUsage(countPromptTokens(request.messages), tokens.length * n);
    return (async function* () {
      for (const piece of echoPieces(tokens)) {
        if (ctx.signal.aborted) return;
        yield [{ choices: Array.from({ length: n }, (_, index) => ({ index, delta: { content: piece }, finish_reason: null })) }];
      }
      yield [{ choices: Array.from({ length: n }, (_, index) => ({ index, delta: {}, finish_reason: finishReason })), usage }];
    })();
  }

  async close(): Promise<void> {}
}
