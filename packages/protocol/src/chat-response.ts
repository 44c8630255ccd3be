import { z } from 'zod';
import { isCount, isNullishString, isObject, isOptionalString, nullishOr } from './json-checks.js';

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

/*
 * Every chunk of every stream, and every answer, passes one of the two schemas above. The checks
 * below accept exactly what they accept in the form they would output it (`choices` present,
 * nothing to default), without zod's copy of each object; anything else, including every
 * malformed body, goes through the schema, which decides and words the failure. The property
 * test in chat-response.test.ts holds the two to the same answers.
 */
const isOptionalCount = (value: unknown) => value === undefined || isCount(value);
const isNullishUsage = nullishOr(
  (value) => isObject(value) && isCount(value.prompt_tokens) && isCount(value.completion_tokens) && isCount(value.total_tokens),
);

/** True when `json` is a completion `upstreamCompletionSchema` would return unchanged. */
export function isPlainUpstreamCompletion(json: unknown): json is UpstreamCompletion {
  if (!isObject(json) || !Array.isArray(json.choices) || json.choices.length === 0 || !isNullishUsage(json.usage)) return false;
  for (const choice of json.choices) {
    if (!isObject(choice) || !isOptionalCount(choice.index) || !isNullishString(choice.finish_reason)) return false;
    const message = choice.message;
    if (!isObject(message) || !isOptionalString(message.role)) return false;
    if (!isNullishString(message.content)) return false;
  }
  return true;
}

/** True when `json` is a chunk `upstreamChunkSchema` would return unchanged. */
export function isPlainUpstreamChunk(json: unknown): json is UpstreamChunk {
  if (!isObject(json) || !Array.isArray(json.choices) || !isNullishUsage(json.usage)) return false;
  for (const choice of json.choices) {
    if (!isObject(choice) || !isOptionalCount(choice.index) || !isNullishString(choice.finish_reason)) return false;
    const delta = choice.delta;
    if (delta !== undefined && !(isObject(delta) && isNullishString(delta.role) && isNullishString(delta.content))) return false;
  }
  return true;
}

/** An upstream completion as the schema reads it, or null when it is not one. */
export function readUpstreamCompletion(json: unknown): UpstreamCompletion | null {
  if (isPlainUpstreamCompletion(json)) return json;
  const parsed = upstreamCompletionSchema.safeParse(json);
  return parsed.success ? parsed.data : null;
}

/** An upstream chunk as the schema reads it, or null when it is not one. */
export function readUpstreamChunk(json: unknown): UpstreamChunk | null {
  if (isPlainUpstreamChunk(json)) return json;
  const parsed = upstreamChunkSchema.safeParse(json);
  return parsed.success ? parsed.data : null;
}
