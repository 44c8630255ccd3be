import type { ProviderConfig } from '@switchboard/config';
import { type ChatCompletionRequest, upstreamError } from '@switchboard/protocol';
import type { CallContext, Provider, ProviderChunk, ProviderCompletion } from '../provider.js';

/** PLACEHOLDER — being replaced by the Messages API translation. */
export class AnthropicProvider implements Provider {
  readonly models: readonly string[];
  constructor(
    readonly name: string,
    config: ProviderConfig,
  ) {
    this.models = config.models;
  }
  async complete(_r: ChatCompletionRequest, _m: string, _c: CallContext): Promise<ProviderCompletion> {
    throw upstreamError('not yet');
  }
  async stream(_r: ChatCompletionRequest, _m: string, _c: CallContext): Promise<AsyncIterable<ProviderChunk>> {
    throw upstreamError('not yet');
  }
  async close(): Promise<void> {}
}
