import type { ProviderConfig } from '@switchboard/config';

/** URL and headers of an OpenAI-compatible server (OpenAI, Ollama, vLLM, OpenRouter, Groq…). */
export function openaiUrl(config: ProviderConfig, path: 'chat/completions' | 'embeddings' | 'audio/transcriptions'): string {
  return `${config.baseUrl.replace(/\/+$/, '')}/${path}`;
}

export function openaiHeaders(config: ProviderConfig): Record<string, string> {
  return {
    ...config.headers,
    ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
  };
}
