import { z } from 'zod';

/** Most inputs in one request, as OpenAI allows. */
export const MAX_EMBEDDING_INPUTS = 2048;

const tokens = z.array(z.int().nonnegative()).min(1);

/** POST /v1/embeddings request. Loose: unknown parameters are ignored, not refused. */
export const embeddingsRequestSchema = z.looseObject({
  model: z.string().min(1),
  input: z.union(
    [
      z.string().min(1),
      z.array(z.string().min(1)).min(1).max(MAX_EMBEDDING_INPUTS),
      tokens,
      z.array(tokens).min(1).max(MAX_EMBEDDING_INPUTS),
    ],
    {
      error: `input must be a non-empty string, an array of up to ${MAX_EMBEDDING_INPUTS} non-empty strings, or token arrays`,
    },
  ),
  encoding_format: z.enum(['float', 'base64']).nullish(),
  dimensions: z.int().min(1).max(65_536).nullish(),
  user: z.string().max(256).nullish(),
});

export type EmbeddingsRequest = z.infer<typeof embeddingsRequestSchema>;

export interface Embedding {
  object: 'embedding';
  index: number;
  /** Floats, or with `encoding_format: "base64"` the little-endian float32 bytes in base64. */
  embedding: number[] | string;
}

export interface EmbeddingsResponse {
  object: 'list';
  data: Embedding[];
  model: string;
  usage: { prompt_tokens: number; total_tokens: number };
}

/** An upstream's answer. An upstream that sends base64 although floats were asked for is read too. */
export const upstreamEmbeddingsSchema = z.looseObject({
  data: z
    .array(
      z.looseObject({
        index: z.int().nonnegative().optional(),
        embedding: z.union([z.array(z.number()), z.string()]),
      }),
    )
    .min(1),
  usage: z.looseObject({ prompt_tokens: z.int().nonnegative(), total_tokens: z.int().nonnegative().optional() }).nullish(),
});

/** Float32 little-endian, as OpenAI encodes `base64` embeddings. */
export function encodeEmbedding(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  for (const [i, value] of vector.entries()) bytes.writeFloatLE(value, i * 4);
  return bytes.toString('base64');
}

export function decodeEmbedding(base64: string): number[] {
  const bytes = Buffer.from(base64, 'base64');
  const out: number[] = [];
  for (let i = 0; i + 4 <= bytes.length; i += 4) out.push(bytes.readFloatLE(i));
  return out;
}
