import type { ProviderConfig } from '@switchboard/config';

/**
 * Azure OpenAI's data plane: one URL per deployment, the version as a query parameter, and the
 * key in `api-key` (set after `config.headers`, so a stray header there cannot replace it).
 */
export function azureUrl(config: ProviderConfig, model: string, path: 'chat/completions' | 'embeddings'): string {
  const deployment = encodeURIComponent(config.deployments[model] ?? model);
  const base = config.baseUrl.replace(/\/+$/, '');
  return `${base}/openai/deployments/${deployment}/${path}?api-version=${encodeURIComponent(config.apiVersion)}`;
}

export function azureHeaders(config: ProviderConfig): Record<string, string> {
  return { ...config.headers, ...(config.apiKey ? { 'api-key': config.apiKey } : {}) };
}
