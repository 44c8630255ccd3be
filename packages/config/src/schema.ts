import { z } from 'zod';

const providerName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'provider names are letters, digits, ".", "_" or "-" (no "/")');

export const providerSchema = z.strictObject({
  /** `openai`: any OpenAI-compatible server. `anthropic`: the Messages API. */
  type: z.enum(['openai', 'anthropic']),
  /** e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`, `https://api.anthropic.com`. */
  baseUrl: z.url({ protocol: /^https?$/ }),
  /** Sent as `Authorization: Bearer` (openai) or `x-api-key` (anthropic). Optional for local servers. */
  apiKey: z.string().min(1).optional(),
  /** The model names this provider serves; ids are `<provider>/<model>`. */
  models: z.array(z.string().min(1)).min(1),
  /**
   * Time to the response headers, and for streams the longest silence between chunks.
   * @defaultValue 60000
   */
  timeoutMs: z.int().min(1).max(3_600_000).default(60_000),
  /** Extra headers sent upstream (e.g. OpenRouter's `HTTP-Referer`). */
  headers: z.record(z.string(), z.string()).default({}),
  /** Anthropic only: the `anthropic-version` header. @defaultValue "2023-06-01" */
  anthropicVersion: z.string().default('2023-06-01'),
  /** Anthropic only: `max_tokens` sent when the request has none. @defaultValue 4096 */
  defaultMaxTokens: z.int().min(1).default(4096),
});

export const sessionsSchema = z.strictObject({
  /** Messages kept per conversation. @defaultValue 20 */
  maxMessages: z.int().min(2).max(1000).default(20),
  /** Conversation memory lifetime, refreshed on use. @defaultValue 86400 */
  ttlSeconds: z.int().min(1).default(86_400),
  /** A user or conversation counts as active this long after its last message. @defaultValue 1800 */
  activeWindowSeconds: z.int().min(1).default(1800),
});

export const configSchema = z.strictObject({
  /** The model `default` stands for. @defaultValue the first configured model, else `local/echo` */
  defaultModel: z.string().min(1).optional(),
  providers: z.record(providerName, providerSchema).default({}),
  sessions: sessionsSchema.default(sessionsSchema.parse({})),
});

export type ProviderConfig = z.infer<typeof providerSchema>;
export type SessionsConfig = z.infer<typeof sessionsSchema>;
export type FileConfig = z.infer<typeof configSchema>;
