import { z } from 'zod';

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  [extra: string]: unknown;
}

export interface ChatCompletionChoice {
  index: number;
  message: { role: 'assistant'; content: string | null; [extra: string]: unknown };
  finish_reason: string | null;
  [extra: string]: unknown;
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: ChatCompletionChoice[];
  usage: Usage;
  [extra: string]: unknown;
}

export interface ChunkChoice {
  index: number;
  delta: { role?: 'assistant'; content?: string | null; [extra: string]: unknown };
  finish_reason: string | null;
  [extra: string]: unknown;
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: ChunkChoice[];
  usage?: Usage | null;
  [extra: string]: unknown;
}

/** Usage as upstreams send it; extra detail fields (cached tokens…) are kept. */
export const usageSchema = z.looseObject({
  prompt_tokens: z.number().int().nonnegative(),
  completion_tokens: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative(),
});

/**
 * An OpenAI-compatible upstream's non-streaming response. Loose: servers add fields
 * (system_fingerprint, logprobs, refusal, reasoning) that are passed on untouched.
 */
export const upstreamCompletionSchema = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        index: z.number().int().nonnegative().optional(),
        message: z.looseObject({ role: z.string().optional(), content: z.string().nullish() }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: usageSchema.nullish(),
});

/** One `chat.completion.chunk` from an OpenAI-compatible upstream stream. */
export const upstreamChunkSchema = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        index: z.number().int().nonnegative().optional(),
        delta: z.looseObject({ role: z.string().nullish(), content: z.string().nullish() }).optional(),
        finish_reason: z.string().nullish(),
      }),
    )
    .default([]),
  usage: usageSchema.nullish(),
});

export type UpstreamCompletion = z.infer<typeof upstreamCompletionSchema>;
export type UpstreamChunk = z.infer<typeof upstreamChunkSchema>;
