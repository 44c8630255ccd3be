import type { ProviderConfig } from '@switchboard/config';

/**
 * The Messages API endpoint. Unlike OpenAI-compatible servers, `baseUrl` is the host root
 * (`https://api.anthropic.com`), as Anthropic's own SDKs take it, so `/v1` is added here.
 */
export function messagesUrl(config: ProviderConfig): string {
  return `${config.baseUrl.replace(/\/+$/, '')}/v1/messages`;
}

/**
 * Anthropic authenticates with `x-api-key` rather than a Bearer token, and pins the wire
 * format with `anthropic-version`. Both are set after `config.headers` so that a stray header
 * there cannot replace the key or the version the config names.
 */
export function anthropicHeaders(config: ProviderConfig): Record<string, string> {
  return {
    ...config.headers,
    'anthropic-version': config.anthropicVersion,
    ...(config.apiKey ? { 'x-api-key': config.apiKey } : {}),
  };
}
