import { decodeEmbedding, type EmbeddingsRequest, upstreamEmbeddingsSchema, upstreamError } from '@switchboard/protocol';
import type { ProviderEmbeddings } from '../provider.js';

/**
 * The upstream body. Floats are always asked for, whatever the client wants: base64 is encoded
 * by the gateway, so it works with every OpenAI-compatible server (some know only floats).
 */
export function toUpstreamEmbeddings(request: EmbeddingsRequest, upstreamModel: string): Record<string, unknown> {
  const { encoding_format: _format, ...rest } = request;
  const body: Record<string, unknown> = { ...rest, model: upstreamModel, encoding_format: 'float' };
  for (const key of Object.keys(body)) if (body[key] === null) delete body[key];
  return body;
}

/** The upstream's list → one float vector per input, in input order. */
export function fromUpstreamEmbeddings(provider: string, json: unknown, inputs: number): ProviderEmbeddings {
  const parsed = upstreamEmbeddingsSchema.safeParse(json);
  if (!parsed.success) {
    throw upstreamError(
      `Upstream '${provider}' returned a response that is not an embeddings list.`,
      'upstream_invalid_response',
    );
  }
  const vectors: number[][] = [];
  parsed.data.data.forEach((item, i) => {
    vectors[item.index ?? i] = typeof item.embedding === 'string' ? decodeEmbedding(item.embedding) : item.embedding;
  });
  if (vectors.length !== inputs || vectors.some((v) => v === undefined)) {
    throw upstreamError(
      `Upstream '${provider}' returned ${parsed.data.data.length} embeddings for ${inputs} inputs.`,
      'upstream_invalid_response',
    );
  }
  return { vectors, promptTokens: parsed.data.usage?.prompt_tokens ?? null };
}

/** How many vectors a request asks for: one per string or token array. */
export function inputCount(input: EmbeddingsRequest['input']): number {
  if (typeof input === 'string') return 1;
  return typeof input[0] === 'number' ? 1 : input.length;
}
