import {
  type ChannelConfig,
  channelRegistry,
  findChannel,
  standardWebhooksSecretSchema,
  targetKeysProblem,
} from '@switchboard/channels';
import { z } from 'zod';

const providerName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'provider names are letters, digits, ".", "_" or "-" (no "/")');

/** Azure OpenAI's GA data-plane version; a deployment may need a newer one for new features. */
export const AZURE_API_VERSION = '2024-10-21';

export const providerSchema = z
  .strictObject({
    /**
     * `openai`: any OpenAI-compatible server. `anthropic`: the Messages API. `azure`: Azure
     * OpenAI (deployments, `api-key` header, `api-version`).
     */
    type: z.enum(['openai', 'anthropic', 'azure']),
    /**
     * e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`, `https://api.anthropic.com`,
     * `https://my-resource.openai.azure.com`. Required, except for azure with `resource`.
     */
    baseUrl: z.url({ protocol: /^https?$/ }).optional(),
    /** Azure only: the resource name, for `https://{resource}.openai.azure.com`. */
    resource: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,62}$/, 'an Azure resource name is letters, digits and "-"')
      .optional(),
    /**
     * Sent as `Authorization: Bearer` (openai), `x-api-key` (anthropic) or `api-key` (azure).
     * Optional for local servers; empty means none, so `${ANTHROPIC_API_KEY:-}` leaves the
     * provider keyless when unset.
     */
    apiKey: z.string().optional(),
    /** The chat model names this provider serves; ids are `<provider>/<model>`. @defaultValue [] */
    models: z.array(z.string().min(1)).default([]),
    /** The embedding model names it serves (POST /v1/embeddings); openai and azure only. @defaultValue [] */
    embeddingModels: z.array(z.string().min(1)).default([]),
    /**
     * The speech-to-text models it serves (POST /v1/audio/transcriptions: `whisper-1`,
     * `gpt-4o-transcribe`…); openai only (Anthropic has no such API). @defaultValue []
     */
    audioModels: z.array(z.string().min(1)).default([]),
    /**
     * Time to the response headers, and for streams the longest silence between chunks.
     * @defaultValue 60000
     */
    timeoutMs: z.int().min(1).max(3_600_000).default(60_000),
    /** Extra headers sent upstream (e.g. OpenRouter's `HTTP-Referer`). */
    headers: z.record(z.string(), z.string()).default({}),
    /**
     * Retries on connection errors, 408, 429 and 5xx, before the first byte reaches the client,
     * with jittered exponential back-off that honours `Retry-After`. @defaultValue 2
     */
    maxRetries: z.int().min(0).max(10).default(2),
    /**
     * Connections this process keeps open to the provider at most; requests beyond wait for one
     * (and a warning is logged once). A stream holds its connection to the end, so this is also
     * the most concurrent streams served without queuing. @defaultValue 1024
     */
    maxConnections: z.int().min(1).max(65_536).default(1024),
    /** Anthropic only: the `anthropic-version` header. @defaultValue "2023-06-01" */
    anthropicVersion: z.string().default('2023-06-01'),
    /** Anthropic only: `max_tokens` sent when the request has none. @defaultValue 4096 */
    defaultMaxTokens: z.int().min(1).default(4096),
    /** Azure only: the `api-version` query parameter. @defaultValue "2024-10-21" */
    apiVersion: z.string().min(1).default(AZURE_API_VERSION),
    /** Azure only: model name → deployment name, for models deployed under another name. @defaultValue {} */
    deployments: z.record(z.string(), z.string().min(1)).default({}),
    /**
     * openai and azure: ask for `stream_options.include_usage` on every stream, so streamed tokens
     * are the upstream's count; false for a server that rejects the option (tokens are then counted
     * with the tokenizer). @defaultValue true
     */
    streamUsage: z.boolean().default(true),
  })
  .check((ctx) => {
    const p = ctx.value;
    const issue = (path: string, message: string) =>
      ctx.issues.push({ code: 'custom', message, path: [path], input: p[path as keyof typeof p] });
    if (p.models.length === 0 && p.embeddingModels.length === 0 && p.audioModels.length === 0)
      issue('models', 'list at least one model (or embeddingModels, audioModels)');
    const both = p.embeddingModels.filter((model) => p.models.includes(model));
    if (both.length) issue('embeddingModels', `a model is a chat or an embedding model, not both: ${both.join(', ')}`);
    const twice = p.audioModels.filter((model) => p.models.includes(model) || p.embeddingModels.includes(model));
    if (twice.length) issue('audioModels', `a model is listed once, as one kind: ${twice.join(', ')}`);
    if (p.type !== 'openai' && p.audioModels.length)
      issue('audioModels', `only openai providers serve transcriptions here (${p.type} has none)`);
    if (p.type === 'azure') {
      if (!p.baseUrl === !p.resource) issue('baseUrl', 'an azure provider needs either resource or baseUrl (not both)');
      const served = new Set([...p.models, ...p.embeddingModels]);
      const unknown = Object.keys(p.deployments).filter((model) => !served.has(model));
      if (unknown.length) issue('deployments', `maps models this provider does not list: ${unknown.join(', ')}`);
    } else {
      if (!p.baseUrl) issue('baseUrl', 'required');
      if (p.resource) issue('resource', 'only azure providers have a resource');
    }
    if (p.type === 'anthropic' && p.embeddingModels.length) issue('embeddingModels', 'Anthropic serves no embedding models');
  })
  .transform(({ resource, baseUrl, ...rest }) => ({
    ...rest,
    baseUrl: baseUrl ?? `https://${resource}.openai.azure.com`,
  }));

/** One deployment of a route: a served model id, and its share of the traffic. */
const routeDeploymentSchema = z.union([
  z
    .string()
    .min(1)
    .transform((model) => ({ model, weight: 1 })),
  z.strictObject({
    model: z.string().min(1),
    /** Its share: twice the weight, twice the requests (among healthy deployments). @defaultValue 1 */
    weight: z.number().positive().max(1_000_000).default(1),
  }),
]);

export const cooldownSchema = z.strictObject({
  /** How long a failing deployment is left alone when its answer names no `Retry-After`. @defaultValue 30000 */
  defaultMs: z.int().min(0).max(3_600_000).default(30_000),
  /** The longest cooldown, whatever `Retry-After` asks for. @defaultValue 300000 */
  maxMs: z.int().min(0).max(86_400_000).default(300_000),
});

export const cacheSchema = z.strictObject({
  /** How long an answer is kept. @defaultValue 3600 */
  ttlSeconds: z
    .int()
    .min(1)
    .max(30 * 86_400)
    .default(3600),
  /**
   * `temperature-zero`: only requests with `temperature: 0` are cached (their answer is meant to
   * be the same each time). `all`: every request, whatever its temperature. @defaultValue "temperature-zero"
   */
  policy: z.enum(['temperature-zero', 'all']).default('temperature-zero'),
  /** true: API keys share one cache; otherwise each key (each `name`) has its own. @defaultValue false */
  shareAcrossKeys: z.boolean().default(false),
  /** Answers larger than this (as JSON) are not stored. @defaultValue 1048576 */
  maxEntryBytes: z
    .int()
    .min(1024)
    .max(64 * 1024 * 1024)
    .default(1024 * 1024),
});

export const sessionsSchema = z.strictObject({
  /** Messages kept per conversation. @defaultValue 20 */
  maxMessages: z.int().min(2).max(1000).default(20),
  /** Conversation memory lifetime, refreshed on use. @defaultValue 86400 */
  ttlSeconds: z.int().min(1).default(86_400),
  /** A user or conversation counts as active this long after its last message. @defaultValue 1800 */
  activeWindowSeconds: z.int().min(1).default(1800),
});

/** A spending limit: tokens per UTC day and cost (in the `pricing` currency) per UTC month. */
export const budgetSchema = z
  .strictObject({
    /** Prompt + completion tokens per UTC day. */
    tokensPerDay: z.int().min(1).optional(),
    /** Cost per UTC calendar month, from `pricing`. */
    costPerMonth: z.number().positive().optional(),
  })
  .refine((b) => b.tokensPerDay !== undefined || b.costPerMonth !== undefined, 'set tokensPerDay, costPerMonth or both');

/** Where delivery outcomes are pushed: `message.delivered` / `message.failed`, signed (Standard Webhooks). */
export const eventsSchema = z.strictObject({
  /** The receiver: each event is one POST, retried with back-off until it answers 2xx. */
  url: z.url({ protocol: /^https?$/ }),
  /** The signing secret, `whsec_` and base64 (as Standard Webhooks libraries take it). */
  secret: standardWebhooksSecretSchema,
});

const MCP_SERVER_NAME = /^[A-Za-z0-9_-]{1,32}$/;
/** `"<server>"` or `"<server>/<tool>"` (MCP tool names: letters, digits, `_`, `-`, `.`). */
export const TOOL_GRANT = /^[A-Za-z0-9_-]{1,32}(\/[A-Za-z0-9_.-]{1,128})?$/;

const mcpCommon = {
  /** A tool call that takes longer is given up, and the model hears it timed out. @defaultValue 30000 */
  timeoutMs: z.int().min(100).max(600_000).default(30_000),
};

/** An MCP server the worker starts as a child process and speaks to over stdio. */
export const mcpStdioServerSchema = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  /** Added to a minimal environment (PATH, HOME…); values are secrets (scrubbed from logs). */
  env: z.record(z.string(), z.string()).default({}),
  ...mcpCommon,
});

/** An MCP server reached over Streamable HTTP. */
export const mcpHttpServerSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  /** Sent with every request (`Authorization: Bearer ${TOKEN}`…); values are secrets. */
  headers: z.record(z.string(), z.string()).default({}),
  ...mcpCommon,
});

export const mcpServerSchema = z.union([mcpStdioServerSchema, mcpHttpServerSchema]);

/** Every hook's and API key's `tools` must name a configured server. */
function checkToolGrants(
  config: { hooks: Record<string, HookConfig>; apiKeys: ApiKeyConfig[]; mcpServers: Record<string, unknown> },
  context: z.RefinementCtx,
) {
  const granted = [
    ...Object.entries(config.hooks).map(([name, hook]) => [['hooks', name, 'tools'], hook.tools] as const),
    ...config.apiKeys.map((key, i) => [['apiKeys', i, 'tools'], typeof key === 'string' ? [] : (key.tools ?? [])] as const),
  ];
  for (const [path, grants] of granted) {
    for (const [i, grant] of grants.entries()) {
      const server = grant.split('/')[0]!;
      if (!(server in config.mcpServers)) {
        context.addIssue({ code: 'custom', path: [...path, i], message: `there is no MCP server named '${server}'` });
      }
    }
  }
}
/** `worker.shards` names shards that exist (`redis.shards`). */
function checkWorkerShards(
  config: { redis: { shards: number }; worker: { shards?: number[] | undefined } },
  context: z.RefinementCtx,
) {
  for (const [i, shard] of (config.worker.shards ?? []).entries()) {
    if (shard >= config.redis.shards) {
      context.addIssue({
        code: 'custom',
        path: ['worker', 'shards', i],
        message: `there is no shard ${shard}: redis.shards is ${config.redis.shards} (shards 0 to ${config.redis.shards - 1})`,
      });
    }
  }
}

/**
 * Who a hook's bot answers (docs/access.md). Set at all, it applies to every message whose channel
 * says where it was written (direct or group); without it, the hook answers everyone everywhere.
 */
export const accessSchema = z.strictObject({
  /** Platform user ids allowed to talk to the bot; empty: everyone. @defaultValue [] */
  users: z.array(z.string().min(1).max(256)).max(10_000).default([]),
  /**
   * Group chats and channels: `mention` answers only messages that mention the bot or reply to
   * it; `all` answers every message; `off` none. @defaultValue "mention"
   */
  groups: z.enum(['mention', 'all', 'off']).default('mention'),
  /** With `groups: "mention"`: keep the other messages in memory as context, unanswered. @defaultValue false */
  groupContext: z.boolean().default(false),
  /**
   * Direct messages: `open` (anyone `users` allows), `off` (none), or `pairing` (an unknown person
   * gets a one-time code an operator approves). @defaultValue "open"
   */
  dm: z.enum(['open', 'off', 'pairing']).default('open'),
});

export type AccessConfig = z.infer<typeof accessSchema>;

/**
 * What a hook's bot does with files sent to it (docs/media.md). All off by default: a file it does
 * not take gets a short polite reply.
 */
export const mediaSchema = z.strictObject({
  /** Images go to the model as image parts (it must see images). @defaultValue false */
  images: z.boolean().default(false),
  /**
   * Whether the hook's model can see images. `false`: an image is answered "Sorry, I cannot look at
   * images with this model; please describe it in words." without fetching it or calling the model
   * (a model that refuses an image gets the same reply). @defaultValue true
   */
  vision: z.boolean().default(true),
  /**
   * Voice notes and audio, transcribed by this `<provider>/<model>` (one of a provider's
   * `audioModels`); the transcript is the message's text.
   */
  audio: z.string().min(1).optional(),
  /**
   * Documents (PDF, plain text, Markdown, CSV) read as text and given to the model with the
   * message. @defaultValue false
   */
  documents: z.boolean().default(false),
  /** The largest file fetched; the download stops there. @defaultValue 20000000 */
  maxBytes: z.int().min(1).max(100_000_000).default(20_000_000),
  /** A document's text is cut here. @defaultValue 50000 */
  maxDocumentChars: z.int().min(1).max(1_000_000).default(50_000),
  /**
   * Generic hooks: fetch attachment URLs that point at private, loopback or link-local addresses
   * (refused otherwise, so callers cannot make the worker reach the internal network). @defaultValue false
   */
  allowPrivateUrls: z.boolean().default(false),
});

export type MediaConfig = z.infer<typeof mediaSchema>;

/** The keys every hook has, whatever its channel. */
export const hookCommonSchema = z.strictObject({
  /** The model that answers this hook. @defaultValue the config's defaultModel */
  model: z.string().min(1).default('default'),
  /**
   * Inbound requests per minute to this hook (all senders together), and messages per minute
   * from one platform user (`perUser`: answered politely once, then silence until the minute ends).
   */
  rateLimit: z
    .strictObject({ requestsPerMinute: z.int().min(1).optional(), perUser: z.int().min(1).optional() })
    .refine((r) => r.requestsPerMinute !== undefined || r.perUser !== undefined, 'set requestsPerMinute, perUser or both')
    .optional(),
  /** Who the bot answers: allowed users, groups (mention-only by default), direct messages. */
  access: accessSchema.optional(),
  /** Files sent to the bot: images (and, later, audio and documents), within `maxBytes`. */
  media: mediaSchema.optional(),
  /** What `/help` (and Telegram's `/start`) answers: what the bot is and how to use it. */
  help: z.string().min(1).max(4000).optional(),
  /** A system prompt prepended to every conversation of this hook (never stored). */
  system: z.string().optional(),
  /** What this hook's model calls may spend; a message over it fails with `insufficient_quota`. */
  budget: budgetSchema.optional(),
  /** This hook's delivery events, instead of the global `events`. */
  events: eventsSchema.optional(),
  /**
   * Tools of the `mcpServers` this hook's bot may call: `"<server>"` (all its tools) or
   * `"<server>/<tool>"`. @defaultValue [] (the bot only talks)
   */
  tools: z.array(z.string().regex(TOOL_GRANT, 'a tool grant is "<server>" or "<server>/<tool>"')).default([]),
  /** Model calls that may ask for tools per message; then the model is asked once more without tools. @defaultValue 8 */
  maxToolSteps: z.int().min(1).max(64).default(8),
  /**
   * Granted tools (`"<server>/<tool>"` or `"<server>"`) that run only once approved
   * (Approve / Deny buttons in Slack, Telegram, Discord and Teams; `POST /hooks/<name>/jobs/<id>/approval` on generic
   * and mapped hooks). @defaultValue []
   */
  approve: z.array(z.string().regex(TOOL_GRANT, 'an approval entry is "<server>" or "<server>/<tool>"')).default([]),
  /**
   * Who may answer an approval's buttons in the chat: platform user ids (Slack `U…`, Teams `29:…`,
   * Telegram's and Discord's numeric ids as strings). Empty: the person whose message asked for the call.
   * @defaultValue [] (the person who asked)
   */
  approvers: z.array(z.string().min(1).max(64)).max(100).default([]),
  /** How long a call waits for approval; then it is denied. @defaultValue 600000 */
  approvalTimeoutMs: z.int().min(1_000).max(86_400_000).default(600_000),
});

export type HookCommonConfig = z.infer<typeof hookCommonSchema>;

/** A configured hook: the keys every hook has, plus its channel's own (`type` says which channel). */
export type HookConfig = HookCommonConfig & ChannelConfig;

/**
 * The `hooks` entries, one variant per registered channel: its own keys plus the common ones.
 * The union is built from a list, which TypeScript cannot follow, so its type is stated.
 */
export const hookSchema = z.discriminatedUnion(
  'type',
  channelRegistry.map((channel) =>
    channel.config.extend({ type: z.literal(channel.type), ...hookCommonSchema.shape }),
  ) as unknown as [z.ZodObject, ...z.ZodObject[]],
) as unknown as z.ZodType<HookConfig, unknown>;

/**
 * A hook that delivers through another (a mapped hook's `deliver: {hook: …}`) must name a
 * configured hook whose channel takes targets, with that channel's target keys.
 */
function checkDeliveryThrough(hooks: Record<string, HookConfig>, context: z.RefinementCtx): void {
  for (const [name, hook] of Object.entries(hooks)) {
    const via = findChannel(hook.type)?.deliversThrough?.(hook);
    if (!via) continue;
    const path = [name, ...via.path];
    const through = hooks[via.hook];
    const target = through ? findChannel(through.type)?.target : undefined;
    if (!through) {
      context.addIssue({ code: 'custom', path: [...path, 'hook'], message: `there is no hook named '${via.hook}'` });
    } else if (!target) {
      context.addIssue({ code: 'custom', path: [...path, 'hook'], message: `a ${through.type} hook cannot deliver to a target` });
    } else {
      const problem = targetKeysProblem(target, Object.keys(via.target));
      if (problem) context.addIssue({ code: 'custom', path, message: problem });
    }
  }
}

export const rateLimitSchema = z.strictObject({
  /** Requests per key (or client IP) per one-minute window. */
  requestsPerMinute: z.int().min(1),
});

export const workerSchema = z.strictObject({
  /**
   * Jobs one worker process runs at once. A job mostly waits (the model call, Redis, the
   * platform), so one process holds many: the default keeps 16 conversations answering at once
   * per process. With several shards (`redis.shards`) it is spread over those the process
   * consumes, at least one each (so never fewer than that many). @defaultValue 16
   */
  concurrency: z.int().min(1).max(256).default(16),
  /**
   * Finished messages the queue keeps per shard, besides their age (completed 24 h, failed 7
   * days): completed ones and failed ones, each up to this many (completed ones are trimmed in
   * batches, up to 1 % more, at most 100, per worker between trims); older ones are removed, and
   * with them their job view. A platform's late repeat of a removed message is still recognised (its
   * dedupe key, 24 h). @defaultValue 10000
   */
  keepJobs: z.int().min(10).max(10_000_000).default(10_000),
  /** Attempts per message (answer and delivery together). @defaultValue 6 */
  attempts: z.int().min(1).max(50).default(6),
  /** First retry delay; doubles each attempt. @defaultValue 500 */
  backoffMs: z.int().min(1).default(500),
  /**
   * How long a job stays locked to a worker without its renewal (BullMQ renews it every quarter
   * of this while the job runs, however long the model takes). Workers check for jobs
   * whose lock ran out every quarter of this, so the messages of a worker that died are taken by
   * another within 1.25× this. A Redis outage longer than this makes the messages in flight run
   * again. @defaultValue 5000
   */
  lockMs: z.int().min(500).default(5_000),
  /**
   * A message queued behind an unfinished one of its conversation is woken as soon as that one
   * is done; this only bounds a wake-up that was missed: it looks again after this long (doubling
   * each time, up to 32×). @defaultValue 10000
   */
  orderRecheckMs: z.int().min(10).default(10_000),
  /**
   * On SIGTERM/SIGINT, how long active jobs may still finish; then their model calls are
   * cancelled and they go back to the queue without spending an attempt. @defaultValue 30000
   */
  shutdownGraceMs: z.int().min(0).max(600_000).default(30_000),
  /**
   * Where the worker serves its Prometheus `/metrics` (admin key required when `adminKeys` are
   * set). Off when unset, so several workers on one host never compete for a port.
   */
  metricsPort: z.int().min(1).max(65_535).optional(),
  /** The address `metricsPort` listens on. @defaultValue 127.0.0.1 */
  metricsHost: z.string().min(1).default('127.0.0.1'),
  /**
   * The hook pipeline's shards (`redis.shards`, numbered from 0) this process consumes; unset:
   * all of them. Every shard needs some worker. `concurrency` is spread over the shards consumed
   * (at least one job at a time each).
   */
  shards: z.array(z.int().min(0)).min(1).optional(),
});

export const metricsSchema = z.strictObject({
  /**
   * Prometheus metrics: the API's `/metrics` and the worker's `worker.metricsPort`. Off: no
   * instrument is updated and both answer 404. @defaultValue true
   */
  enabled: z.boolean().default(true),
});

/** An API key's keys that `budget` replaced: still read, mapped onto `budget`, and named by `--check`. */
export const DEPRECATED_API_KEY_KEYS = ['tokensPerDay', 'costPerMonth'] as const;

export const apiKeySchema = z.union([
  z.string().min(8, 'API keys must be at least 8 characters'),
  z
    .strictObject({
      key: z.string().min(8, 'API keys must be at least 8 characters'),
      /** This key's own limit, instead of `rateLimit.requestsPerMinute`. */
      requestsPerMinute: z.int().min(1).optional(),
      /** A name for logs and usage reports (never the key itself). */
      name: z.string().optional(),
      /** What this key's requests may spend (the same object as a hook's); over it 429 `insufficient_quota`. */
      budget: budgetSchema.optional(),
      /** Deprecated: `budget.tokensPerDay`. */
      tokensPerDay: z.int().min(1).optional(),
      /** Deprecated: `budget.costPerMonth`. */
      costPerMonth: z.number().positive().optional(),
      /**
       * Tools of the `mcpServers` this key's `/v1/responses` requests may name in an `mcp` tool:
       * `"<server>"` (all its tools) or `"<server>/<tool>"`. @defaultValue [] (none)
       */
      tools: z.array(z.string().regex(TOOL_GRANT, 'a tool grant is "<server>" or "<server>/<tool>"')).optional(),
    })
    .check((ctx) => {
      if (!ctx.value.budget) return;
      for (const old of DEPRECATED_API_KEY_KEYS) {
        if (ctx.value[old] === undefined) continue;
        const message = `set budget.${old} (not both budget and the old flat ${old})`;
        ctx.issues.push({ code: 'custom', message, path: [old], input: ctx.value[old] });
      }
    })
    .transform(({ tokensPerDay, costPerMonth, budget, ...rest }): typeof rest & { budget?: BudgetConfig } => {
      if (budget) return { ...rest, budget };
      if (tokensPerDay === undefined && costPerMonth === undefined) return rest;
      return {
        ...rest,
        budget: { ...(tokensPerDay !== undefined && { tokensPerDay }), ...(costPerMonth !== undefined && { costPerMonth }) },
      };
    }),
]);

/** Price of one model, per million tokens, in one currency (USD in the docs). */
export const priceSchema = z.strictObject({
  input: z.number().min(0),
  output: z.number().min(0),
});

export const usageSchema = z.strictObject({
  /**
   * Record requests, tokens and cost per API key, model, hook and day in Redis (`GET
   * /admin/usage`). Budgets are counted whatever this says. @defaultValue true
   */
  enabled: z.boolean().default(true),
  /** How long a day's usage is kept. @defaultValue 400 */
  retentionDays: z.int().min(1).max(3660).default(400),
});

export const limitsSchema = z
  .strictObject({
    /** Largest /v1 request body. @defaultValue 1048576 (1 MiB) */
    maxBodyBytes: z
      .int()
      .min(1024)
      .default(1024 * 1024),
    /** Largest /hooks request body. @defaultValue 262144 (256 KiB) */
    hookMaxBodyBytes: z
      .int()
      .min(1024)
      .default(256 * 1024),
    /** Most messages in one chat request. @defaultValue 1000 */
    maxMessages: z.int().min(1).default(1000),
    /** Deepest JSON nesting accepted in a body. @defaultValue 32 */
    maxJsonDepth: z.int().min(4).max(1000).default(32),
    /**
     * Time a client has to send the request line and headers; a slower one (a slowloris) gets 408
     * and is disconnected. @defaultValue 10000
     */
    headersTimeoutMs: z.int().min(100).max(600_000).default(10_000),
    /**
     * Time a client has to send the whole request, headers and body; a body that stalls gets 408
     * and the connection is closed. Streamed responses are not bounded by it. @defaultValue 30000
     */
    bodyTimeoutMs: z.int().min(100).max(3_600_000).default(30_000),
    /**
     * Largest audio file on POST /v1/audio/transcriptions (OpenAI's own limit is 25 MB); a larger
     * one is a 413, read no further. @defaultValue 26214400 (25 MiB)
     */
    maxAudioBytes: z
      .int()
      .min(1024)
      .max(1024 * 1024 * 1024)
      .default(25 * 1024 * 1024),
  })
  .refine((limits) => limits.headersTimeoutMs <= limits.bodyTimeoutMs, {
    message: 'headersTimeoutMs must not be longer than bodyTimeoutMs (the headers are part of the request)',
    path: ['headersTimeoutMs'],
  });

export const healthSchema = z.strictObject({
  /**
   * How often each hook's platform credentials are checked (Slack `auth.test`, Telegram `getMe`,
   * Discord `GET /applications/@me`); one process checks per interval, whatever their number.
   * 0 turns the checks off. @defaultValue 300000
   */
  channelCheckMs: z.union([z.literal(0), z.int().min(1_000).max(86_400_000)]).default(300_000),
});

export const configSchema = z
  .strictObject({
    /** The model `default` stands for. @defaultValue the first configured model, else `local/echo` */
    defaultModel: z.string().min(1).optional(),
    providers: z.record(providerName, providerSchema).default({}),
    sessions: sessionsSchema.default(sessionsSchema.parse({})),
    /** Inbound webhooks, served at `/hooks/<name>`. */
    hooks: z
      .record(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'hook names are letters, digits, "_" or "-"'), hookSchema)
      .default({})
      .superRefine(checkDeliveryThrough),
    worker: workerSchema.default(workerSchema.parse({})),
    /** When any are set, /v1 and /status need `Authorization: Bearer <key>`. */
    apiKeys: z.array(apiKeySchema).default([]),
    /**
     * Keys for the operator's routes (`/admin/*`, `/metrics`, the dashboard), separate from
     * `apiKeys`: an API key never opens them. Without any, those routes are open only when no
     * `apiKeys` are set either (a local setup), else refused.
     */
    adminKeys: z.array(z.string().min(16, 'admin keys must be at least 16 characters')).default([]),
    /** Per API key (per client IP when no keys are configured), shared through Redis. */
    rateLimit: rateLimitSchema.optional(),
    limits: limitsSchema.default(limitsSchema.parse({})),
    health: healthSchema.default(healthSchema.parse({})),
    metrics: metricsSchema.default(metricsSchema.parse({})),
    /** `{ "<model id or route>": ["<model id or route>", …] }`: who serves a request when a model still fails after its retries. */
    fallbacks: z.record(z.string(), z.array(z.string().min(1)).min(1)).default({}),
    /**
     * Load balancing: `{ "<name>": [{ "model": "<model id>", "weight": 2 }, "<model id>", …] }`. A
     * request for `<name>` goes to one of its healthy deployments, by weight.
     */
    routes: z
      .record(
        z.string().regex(/^[^\s]{1,200}$/, 'route names have no spaces'),
        z.array(routeDeploymentSchema).min(1, 'a route needs at least one deployment'),
      )
      .default({}),
    /** How long a deployment that answered 429, 5xx or not at all is left alone, across all processes. */
    cooldown: cooldownSchema.default(cooldownSchema.parse({})),
    /** The response cache (opt-in: off unless this key is present). */
    cache: cacheSchema.optional(),
    /**
     * Behind a reverse proxy: take the client IP (for per-IP rate limits) from `X-Forwarded-For`.
     * Only turn on when every request comes through a proxy that sets it. @defaultValue false
     */
    trustProxy: z.boolean().default(false),
    /**
     * Redis Cluster: its seed nodes (`host:port`), instead of a `redis-cluster://` REDIS_URL. The
     * password, if any, stays in REDIS_URL (`redis://:password@…`).
     */
    redis: z
      .strictObject({
        cluster: z.array(z.string().min(3)).default([]),
        /**
         * The hook pipeline's shards: each has its own hash tag and its own BullMQ queue, and a
         * conversation belongs to one of them (a stable hash of its key), so on Redis Cluster the
         * pipeline spreads over the masters (e.g. 16 for a cluster of up to about 5 masters). Fixed for a
         * deployment: changing it moves conversations to other shards, away from their memory and
         * unfinished jobs. With 1 every key keeps the name earlier releases wrote. @defaultValue 1
         */
        shards: z.int().min(1).max(256).default(1),
        /**
         * Accepting a hook message waits (Redis WAIT, at most 1 s) until this many replicas of its
         * master have it, so a master killed right after the platform was answered loses nothing
         * (replication is asynchronous otherwise). Only with replicas: none answering, the message
         * is still accepted after the second, with a warning. @defaultValue 0
         */
        replicaAcks: z.int().min(0).max(5).default(0),
      })
      .default({ cluster: [], shards: 1, replicaAcks: 0 }),
    /**
     * `{ "<model id or requested name>": { "input": 2.5, "output": 10 } }`: price per million
     * prompt (`input`) and completion (`output`) tokens, for usage costs and `costPerMonth`
     * budgets. The serving model's id is looked up first, then the requested name. @defaultValue {}
     */
    pricing: z.record(z.string().min(1), priceSchema).default({}),
    /** Usage accounting (per key, model, hook and day). */
    usage: usageSchema.default(usageSchema.parse({})),
    /** Browser access: CORS is off unless origins are listed (`["*"]` for any). */
    cors: z.strictObject({ origins: z.array(z.string().min(1)).default([]) }).default({ origins: [] }),
    /** Delivery outcomes of every hook's messages, POSTed here (a hook's own `events` wins). */
    events: eventsSchema.optional(),
    /** MCP servers whose tools hooks may grant their bots (`hooks.<name>.tools`), by name. */
    mcpServers: z
      .record(z.string().regex(MCP_SERVER_NAME, 'MCP server names are letters, digits, "_" or "-" (≤ 32)'), mcpServerSchema)
      .default({}),
  })
  .superRefine(checkToolGrants)
  .superRefine(checkWorkerShards);

export type ProviderConfig = z.infer<typeof providerSchema>;
export type RoutesConfig = z.infer<typeof configSchema>['routes'];
export type CooldownConfig = z.infer<typeof cooldownSchema>;
export type CacheConfig = z.infer<typeof cacheSchema>;
export type SessionsConfig = z.infer<typeof sessionsSchema>;
export type ApiKeyConfig = z.infer<typeof apiKeySchema>;
export type LimitsConfig = z.infer<typeof limitsSchema>;
export type WorkerConfig = z.infer<typeof workerSchema>;
export type HealthConfig = z.infer<typeof healthSchema>;
export type BudgetConfig = z.infer<typeof budgetSchema>;
export type PriceConfig = z.infer<typeof priceSchema>;
export type UsageConfig = z.infer<typeof usageSchema>;
export type FileConfig = z.infer<typeof configSchema>;
export type McpServerConfig = z.infer<typeof mcpServerSchema>;
export type McpStdioServerConfig = z.infer<typeof mcpStdioServerSchema>;
export type McpHttpServerConfig = z.infer<typeof mcpHttpServerSchema>;
