import { z } from 'zod';

/**
 * The parts of Anthropic's Messages API responses that are mapped to the OpenAI shape. Loose on
 * purpose: Anthropic adds block types (thinking, server tools), delta types and usage fields over
 * time, and Anthropic-compatible servers omit some fields, so only what is read is checked.
 */
const count = z.number().int().nonnegative();

export const usageSchema = z.looseObject({
  input_tokens: count,
  output_tokens: count,
  cache_creation_input_tokens: count.nullish(),
  cache_read_input_tokens: count.nullish(),
});

/** `message_start` and `message_delta` carry only some of the counts, depending on the API version. */
export const partialUsageSchema = usageSchema.partial();

export type AnthropicUsage = z.infer<typeof partialUsageSchema>;

/**
 * A schema for "any other `type`", so that new block or delta kinds are skipped rather than
 * rejected, while a known kind of the wrong shape still fails (it cannot fall through to here).
 */
function otherType(known: readonly string[]) {
  return z
    .looseObject({ type: z.string().check(z.refine((t) => !known.includes(t), 'a known type of the wrong shape')) })
    .transform(() => ({ type: 'other' as const }));
}

export const contentBlockSchema = z.union([
  z.looseObject({ type: z.literal('text'), text: z.string() }),
  z.looseObject({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown() }),
  otherType(['text', 'tool_use']),
]);

export const blockDeltaSchema = z.union([
  z.looseObject({ type: z.literal('text_delta'), text: z.string() }),
  z.looseObject({ type: z.literal('input_json_delta'), partial_json: z.string() }),
  otherType(['text_delta', 'input_json_delta']),
]);

/** A complete (non-streaming) message. `type` and `role` are not checked: they are constant. */
export const messageSchema = z.looseObject({
  content: z.array(contentBlockSchema),
  stop_reason: z.string().nullish(),
  usage: usageSchema,
});

/** Every `type` of stream event Anthropic documents; others are to be ignored, per its docs. */
export const STREAM_EVENT_TYPES: ReadonlySet<string> = new Set([
  'message_start',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'message_delta',
  'message_stop',
  'ping',
  'error',
]);

export const eventTypeSchema = z.looseObject({ type: z.string() });

export const streamEventSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('message_start'), message: z.looseObject({ usage: partialUsageSchema.nullish() }) }),
  z.looseObject({ type: z.literal('content_block_start'), index: count, content_block: contentBlockSchema }),
  z.looseObject({ type: z.literal('content_block_delta'), index: count, delta: blockDeltaSchema }),
  z.looseObject({ type: z.literal('content_block_stop') }),
  z.looseObject({
    type: z.literal('message_delta'),
    delta: z.looseObject({ stop_reason: z.string().nullish() }),
    usage: partialUsageSchema.nullish(),
  }),
  z.looseObject({ type: z.literal('message_stop') }),
  z.looseObject({ type: z.literal('ping') }),
  z.looseObject({ type: z.literal('error'), error: z.looseObject({ message: z.string().nullish() }).nullish() }),
]);

export type StreamEvent = z.infer<typeof streamEventSchema>;
