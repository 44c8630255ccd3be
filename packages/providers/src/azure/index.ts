import type { ProviderConfig } from '@switchboard/config';
import type { ProviderHooks } from '../http-provider.js';
import { OpenAIProvider } from '../openai/index.js';
import { azureHeaders, azureUrl } from './api.js';
import { azureError } from './azure-error.js';

/**
 * Azure OpenAI: the OpenAI wire format (bodies, streams, embeddings), reached per deployment
 * with `api-key` and `api-version`; its own error codes are mapped in azure-error.ts.
 */
export class AzureProvider extends OpenAIProvider {
  constructor(name: string, config: ProviderConfig, hooks: ProviderHooks = {}) {
    super(name, config, azureHeaders(config), azureError(name, config.apiKey ? [config.apiKey] : []), hooks);
  }

  protected override chatUrl(upstreamModel: string): string {
    return azureUrl(this.config, upstreamModel, 'chat/completions');
  }

  protected override embeddingsUrl(upstreamModel: string): string {
    return azureUrl(this.config, upstreamModel, 'embeddings');
  }
}
