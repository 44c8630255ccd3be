import type { ProviderConfig } from '@switchboard/config';

/** URL and headers of an OpenAI-compatible server (OpenAI, Ollama, vLLM, OpenRouter, Groq…). */
export function chatCompletionsUrl(config: ProviderConfig): string {
  return `${config.baseUrl.replace(/\/+$/, '')}/chat/completions`;
}

export function openaiHeaders(config: ProviderConfig): Record<string, string> {
  return {
    ...config.headers,
    ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
  };
}
