import { z } from 'zod';
import { intIn, isBoolean, isObject, isOptionalString, nullishOr, numberIn } from './json-checks.js';

/**
 * POST /v1/chat/completions request. Every standard parameter is type-checked; unknown ones
 * are kept (loose objects) so new OpenAI parameters reach OpenAI-compatible upstreams as-is.
 */
const textPart = z.looseObject({ type: z.literal('text'), text: z.string() });
const otherPart = z.looseObject({ type: z.string().check(z.refine((t) => t !== 'text', 'expected a text part')) });
export const contentPartSchema = z.union([textPart, otherPart]);

export const messageRoleSchema = z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']);

export const chatMessageSchema = z
  .looseObject({
    role: messageRoleSchema,
    content: z.union([z.string(), z.array(contentPartSchema)]).nullish(),
    name: z.string().optional(),
    tool_calls: z.array(z.looseObject({ id: z.string(), type: z.string(), function: z.looseObject({}) })).optional(),
    tool_call_id: z.string().optional(),
  })
  .check((ctx) => {
    const m = ctx.value;
    if ((m.content === undefined || m.content === null) && !(m.role === 'assistant' && m.tool_calls)) {
      ctx.issues.push({
        code: 'custom',
        message: `a '${m.role}' message needs content`,
        path: ['content'],
        input: m.content,
      });
    }
  });

const nullable = <T extends z.ZodType>(schema: T) => schema.nullish();

export const chatCompletionRequestSchema = z.looseObject({
  model: z.string().min(1).default('default'),
  messages: z.array(chatMessageSchema).min(1, 'messages must hold at least one message'),
  stream: nullable(z.boolean()),
  stream_options: nullable(z.looseObject({ include_usage: z.boolean().optional() })),
  temperature: nullable(z.number().min(0).max(2)),
  top_p: nullable(z.number().min(0).max(1)),
  n: nullable(z.int().min(1).max(128)),
  max_tokens: nullable(z.int().min(1)),
  max_completion_tokens: nullable(z.int().min(1)),
  stop: nullable(z.union([z.string(), z.array(z.string()).max(4)])),
  presence_penalty: nullable(z.number().min(-2).max(2)),
  frequency_penalty: nullable(z.number().min(-2).max(2)),
  logit_bias: nullable(z.record(z.string(), z.number().min(-100).max(100))),
  logprobs: nullable(z.boolean()),
  top_logprobs: nullable(z.int().min(0).max(20)),
  seed: nullable(z.int()),
  user: nullable(z.string().max(256)),
  response_format: nullable(z.looseObject({ type: z.string() })),
  tools: nullable(
    z.array(
      z.looseObject({
        type: z.string(),
        function: z.looseObject({ name: z.string().min(1), description: z.string().optional() }),
      }),
    ),
  ),
  tool_choice: nullable(z.union([z.enum(['none', 'auto', 'required']), z.looseObject({ type: z.string() })])),
  parallel_tool_calls: nullable(z.boolean()),
});

export type ChatCompletionRequest = z.infer<typeof chatCompletionRequestSchema>;
export type ChatMessage = z.infer<typeof chatMessageSchema>;
export type ContentPart = z.infer<typeof contentPartSchema>;

/** The text of a message: a string as-is, text parts joined. */
export function messageText(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!content) return '';
  let text = '';
  for (const part of content) if (part.type === 'text' && typeof part.text === 'string') text += part.text;
  return text;
}

/** Zod path → OpenAI `param` style: `messages[0].role`. */
export function formatParam(path: readonly PropertyKey[]): string | null {
  if (path.length === 0) return null;
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out ? `.${String(key)}` : String(key);
  }
  return out;
}

/*
 * The common request, checked without zod's copy of every object: a model, plain text messages
 * and scalar parameters. `isPlainChatRequest` accepts exactly what the schema would return
 * unchanged; a request using anything else (content parts, tools, `stop`, a missing model…)
 * goes through the schema, which decides and words the 400. chat-request.test.ts holds the two
 * to the same answers.
 */
const SCALAR_PARAMETERS: Record<string, (value: unknown) => boolean> = {
  stream: nullishOr(isBoolean),
  stream_options: nullishOr((value) => isObject(value) && (value.include_usage === undefined || isBoolean(value.include_usage))),
  temperature: nullishOr(numberIn(0, 2)),
  top_p: nullishOr(numberIn(0, 1)),
  n: nullishOr(intIn(1, 128)),
  max_tokens: nullishOr(intIn(1, Number.MAX_SAFE_INTEGER)),
  max_completion_tokens: nullishOr(intIn(1, Number.MAX_SAFE_INTEGER)),
  presence_penalty: nullishOr(numberIn(-2, 2)),
  frequency_penalty: nullishOr(numberIn(-2, 2)),
  logprobs: nullishOr(isBoolean),
  top_logprobs: nullishOr(intIn(0, 20)),
  seed: nullishOr(intIn(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)),
  user: nullishOr((value) => typeof value === 'string' && value.length <= 256),
  parallel_tool_calls: nullishOr(isBoolean),
};
/** Parameters the fast check leaves to the schema whenever they are present. */
const OTHER_PARAMETERS = ['stop', 'logit_bias', 'response_format', 'tools', 'tool_choice'] as const;
const OTHER: ReadonlySet<string> = new Set(OTHER_PARAMETERS);
const ROLES: ReadonlySet<unknown> = new Set(messageRoleSchema.options);

/** True when `body` is a request `chatCompletionRequestSchema` would return unchanged. */
export function isPlainChatRequest(body: unknown): body is ChatCompletionRequest {
  if (!isObject(body) || typeof body.model !== 'string' || body.model.length === 0) return false;
  const { messages } = body;
  if (!Array.isArray(messages) || messages.length === 0) return false;
  for (const message of messages) {
    if (!isObject(message) || !ROLES.has(message.role) || typeof message.content !== 'string') return false;
    if (!isOptionalString(message.name) || !isOptionalString(message.tool_call_id) || message.tool_calls !== undefined)
      return false;
  }
  // The body's own keys (a handful), not every parameter looked up on it: a parameter it lacks
  // reads undefined, which every check accepts.
  for (const name in body) {
    const value = body[name];
    if (value === undefined) continue;
    const check = Object.hasOwn(SCALAR_PARAMETERS, name) ? SCALAR_PARAMETERS[name] : undefined;
    if (check ? !check(value) : OTHER.has(name)) return false;
  }
  return true;
}
