// The configuration reference's words, one entry per row; `npm run docs` renders them with what the
// schema itself says (each key's channels), and a test holds them to the schema both ways.

import type { KeyDoc } from './key-doc.js';

/** The environment variables, in ENV_VARIABLES order (the same test holds it). */
export const ENVIRONMENT_DOCS: readonly KeyDoc[] = [
  { keys: ['PORT'], default: '`8080`', meaning: 'API port' },
  { keys: ['HOST'], default: '`127.0.0.1`', meaning: 'API bind address (`0.0.0.0` in Docker)' },
  {
    keys: ['API_PROCESSES'],
    default: '`1`',
    meaning:
      'API processes sharing the port under node:cluster: a number (1–64) or `auto` (one per core); each is a whole API, state is shared through Redis (see [Every core](scaling.md#every-core-api_processes))',
  },
  {
    keys: ['REDIS_URL'],
    default: '`redis://127.0.0.1:6379`',
    meaning:
      'one Redis (`redis://[:pw@]host:6379[/db]`, `rediss://` for TLS), a Redis Cluster (`redis-cluster://[:pw@]host:port,host:port`), or Redis Sentinel (`redis-sentinel://[:pw@]host:port,host:port/<master name>[/db]`); see [Redis Cluster and Sentinel](scaling.md#redis-cluster-and-sentinel)',
  },
  { keys: ['SWITCHBOARD_CONFIG'], default: 'none', meaning: 'path to a JSON or YAML config file (below)' },
  {
    keys: ['SWITCHBOARD_REDIS_PREFIX'],
    default: '`switchboard`',
    meaning: 'every Redis key and BullMQ queue lives under this prefix',
  },
  { keys: ['SWITCHBOARD_DRAIN_MS'], default: '`30000`', meaning: 'how long SIGTERM waits for in-flight requests and streams' },
  { keys: ['SWITCHBOARD_API_KEYS'], default: 'none', meaning: "comma-separated API keys, added to the config's `apiKeys`" },
  {
    keys: ['SWITCHBOARD_ADMIN_KEYS'],
    default: 'none',
    meaning: "comma-separated admin keys (16+ characters), added to the config's `adminKeys`",
  },
  { keys: ['LOG_LEVEL'], default: '`info`', meaning: '`error`, `warn`, `info`, `http`, `verbose`, `debug`, `silly`' },
  {
    keys: ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_MODELS'],
    default: '',
    meaning:
      'without a config file: add provider `openai` (base URL default `https://api.openai.com/v1`, models default `gpt-4o-mini,gpt-4o`). Setting only `OPENAI_BASE_URL` (e.g. Ollama) works too.',
  },
  {
    keys: ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'ANTHROPIC_MODELS'],
    default: '',
    meaning: 'without a config file: add provider `anthropic` (default `https://api.anthropic.com`, model `claude-sonnet-4-5`)',
  },
  {
    keys: ['OTEL_EXPORTER_OTLP_ENDPOINT'],
    default: 'none',
    meaning:
      'OpenTelemetry traces: when set, both processes load the OpenTelemetry SDK and send spans over OTLP/HTTP to `<endpoint>/v1/traces` (see [Metrics and traces](operations.md#metrics-and-traces)); unset, no SDK is loaded and no span is made',
  },
  {
    keys: ['OTEL_SERVICE_NAME'],
    default: '`switchboard-api` / `switchboard-worker`',
    meaning: 'the `service.name` of the spans',
  },
];

/** Every config key but the hooks' own. */
export const CONFIG_DOCS: readonly KeyDoc[] = [
  {
    keys: ['defaultModel'],
    default: 'first model of the first provider, else `local/echo`',
    meaning: 'what the model id `default` means',
  },
  {
    keys: ['providers.<name>.type'],
    default: 'required',
    meaning: '`openai` (any OpenAI-compatible server), `anthropic` (Messages API) or `azure` (Azure OpenAI)',
  },
  {
    keys: ['providers.<name>.baseUrl'],
    default: 'required (azure: this or `resource`)',
    meaning:
      '`openai`: requests go to `{baseUrl}/chat/completions` and `{baseUrl}/embeddings`; `anthropic`: `{baseUrl}/v1/messages`; `azure`: the resource endpoint, requests go to `{baseUrl}/openai/deployments/{deployment}/chat/completions?api-version=…`',
  },
  {
    keys: ['providers.<name>.resource'],
    default: 'none',
    meaning: 'azure only: the resource name, for `https://{resource}.openai.azure.com`',
  },
  {
    keys: ['providers.<name>.apiKey'],
    default: 'none',
    meaning: '`Authorization: Bearer …` (openai), `x-api-key` (anthropic) or `api-key` (azure); optional for local servers',
  },
  {
    keys: ['providers.<name>.models'],
    default: '`[]`',
    meaning: 'the chat models served; ids are `<name>/<model>`; a provider lists at least one model or embedding model',
  },
  {
    keys: ['providers.<name>.embeddingModels'],
    default: '`[]`',
    meaning: 'openai and azure: the models served on `/v1/embeddings` (listed in `/v1/models` too)',
  },
  {
    keys: ['providers.<name>.audioModels'],
    default: '`[]`',
    meaning:
      'openai only: the speech-to-text models served on `/v1/audio/transcriptions` (`whisper-1`, `gpt-4o-transcribe`…; listed in `/v1/models` too)',
  },
  {
    keys: ['providers.<name>.timeoutMs'],
    default: '`60000`',
    meaning: 'time to the response headers, and for streams the longest silence between chunks → 504 (and a cooldown)',
  },
  {
    keys: ['providers.<name>.maxConnections'],
    default: '`1024`',
    meaning:
      'connections this process keeps to the provider at most; a stream holds one to its end, so this is the most concurrent streams served without waiting. Requests beyond wait, and a warning is logged once',
  },
  {
    keys: ['providers.<name>.maxRetries'],
    default: '`2`',
    meaning:
      'retries on connection errors, 408, 429 and 5xx with jittered back-off honouring `Retry-After`, before the first byte reaches the client; in a route, only the last deployment tried retries (the others are its retries)',
  },
  {
    keys: ['providers.<name>.headers'],
    default: '`{}`',
    meaning: "extra headers sent upstream (e.g. OpenRouter's `HTTP-Referer`)",
  },
  { keys: ['providers.<name>.anthropicVersion'], default: '`2023-06-01`', meaning: 'anthropic only: `anthropic-version` header' },
  {
    keys: ['providers.<name>.defaultMaxTokens'],
    default: '`4096`',
    meaning: 'anthropic only: `max_tokens` when the request has none (Anthropic requires it)',
  },
  { keys: ['providers.<name>.apiVersion'], default: '`2024-10-21`', meaning: 'azure only: the `api-version` query parameter' },
  {
    keys: ['providers.<name>.deployments'],
    default: '`{}`',
    meaning:
      'azure only: `{"gpt-4o": "prod-gpt-4o"}`, model → deployment name where they differ (otherwise the deployment is the model name)',
  },
  {
    keys: ['providers.<name>.streamUsage'],
    default: '`true`',
    meaning:
      'openai and azure: every stream asks the upstream for its usage chunk (`stream_options.include_usage`), for [usage and budgets](api.md#usage-and-budgets); the client sees that chunk only if it asked. `false` for a server that rejects the option: tokens are then counted with the tokenizer',
  },
  { keys: ['sessions.maxMessages'], default: '`20`', meaning: 'messages remembered per hook conversation' },
  { keys: ['sessions.ttlSeconds'], default: '`86400`', meaning: 'conversation memory lifetime, refreshed on use' },
  {
    keys: ['sessions.activeWindowSeconds'],
    default: '`1800`',
    meaning: 'a `/v1` user or a conversation counts as an active session this long after its last message',
  },
  { keys: ['hooks.<name>'], default: 'none', meaning: 'inbound webhooks, see [Channels](channels/README.md)' },
  {
    keys: ['worker.concurrency'],
    default: '`16`',
    meaning:
      'jobs one worker process runs at once (a job mostly waits on the model, Redis and the platform); with several shards spread over those it consumes, at least one each (so never fewer than that many)',
  },
  {
    keys: ['worker.attempts'],
    default: '`6`',
    meaning:
      'attempts per hook message (answer + delivery): the only retry loop of a hook message — its model calls make one attempt per model (no `maxRetries`), fallbacks are tried within an attempt, so at most `attempts × (1 + fallbacks)` model calls',
  },
  {
    keys: ['worker.backoffMs'],
    default: '`500`',
    meaning:
      "first retry delay, doubling each attempt (0.5 s, 1 s, 2 s, 4 s, 8 s); a model's or platform's `Retry-After` (429/503, Telegram/Discord `retry_after`) replaces it, up to 5 min",
  },
  {
    keys: ['worker.lockMs'],
    default: '`5000`',
    meaning:
      "a job's lock, renewed while it runs; a worker that died has its messages taken by another within 1.25 × this (stall checks every quarter of it). A Redis outage longer than this runs in-flight messages again",
  },
  {
    keys: ['worker.orderRecheckMs'],
    default: '`10000`',
    meaning:
      'a message queued behind an unfinished one of its conversation is woken when that one is done; this only bounds a missed wake-up: it looks again after this long × the messages ahead of it (then doubling), at most 32×',
  },
  {
    keys: ['worker.shutdownGraceMs'],
    default: '`30000`',
    meaning:
      'on SIGTERM/SIGINT, how long active jobs may still finish; then their model calls are cancelled and they go back to the queue without spending an attempt; the process exits within this + 5 s',
  },
  {
    keys: ['worker.metricsPort'],
    default: 'none',
    meaning:
      "the port the worker serves its Prometheus `/metrics` on (the same admin-key rule as the API's `/metrics`); unset: no server, so several workers on one host never compete for a port",
  },
  {
    keys: ['worker.metricsHost'],
    default: '`127.0.0.1`',
    meaning: 'the address `worker.metricsPort` listens on (`0.0.0.0` in a container)',
  },
  {
    keys: ['worker.keepJobs'],
    default: '`10000`',
    meaning:
      "finished messages kept per shard besides their age (completed 24 h, failed 7 days): completed ones and failed ones, each up to this many (completed ones trimmed in batches: up to 1 % more, at most 100, per worker between trims); older ones go, with their job view, so Redis memory levels off; a platform's late repeat of one is still recognised (its dedupe key, 24 h)",
  },
  {
    keys: ['worker.shards'],
    default: 'all',
    meaning:
      'the pipeline shards (`redis.shards`, numbered from 0) this worker process consumes, e.g. `[0, 1, 2, 3]`; every shard needs some worker; `concurrency` is spread over them (at least one job at a time each); see [Shards](scaling.md#shards)',
  },
  {
    keys: ['apiKeys'],
    default: '`[]`',
    meaning:
      'strings, or `{"key": "…", "requestsPerMinute": 10, "name": "team-a", "budget": {"tokensPerDay": 200000, "costPerMonth": 50}}`; when any are set, `/v1/*` and `/status` need `Authorization: Bearer <key>`',
  },
  {
    keys: ['apiKeys[].budget'],
    default: 'off',
    meaning:
      '`{"tokensPerDay": 200000, "costPerMonth": 50}`, the object `hooks.<name>.budget` takes: what the key\'s requests may spend; over it 429 `insufficient_quota` (see [Usage and budgets](api.md#usage-and-budgets))',
  },
  {
    keys: ['apiKeys[].budget.tokensPerDay'],
    default: 'off',
    meaning: 'prompt + completion tokens the key may use per UTC day',
  },
  {
    keys: ['apiKeys[].budget.costPerMonth'],
    default: 'off',
    meaning: 'cost (from `pricing`) the key may spend per UTC calendar month',
  },
  {
    keys: ['apiKeys[].tools'],
    default: '`[]`',
    meaning:
      'tools of the `mcpServers` the key\'s `/v1/responses` requests may run through an `mcp` tool: `"<server>"` (all its tools) or `"<server>/<tool>"`; naming a server not granted is a 400, see [On /v1/responses](tools.md#on-v1responses)',
  },
  {
    keys: ['apiKeys[].tokensPerDay', 'apiKeys[].costPerMonth'],
    default: 'off',
    meaning:
      'deprecated: still read as `budget.tokensPerDay` and `budget.costPerMonth` (not beside a `budget`), and `--check` prints a line naming each',
  },
  {
    keys: ['adminKeys'],
    default: '`[]`',
    meaning:
      "strings of 16+ characters; `/admin/*`, `/metrics` and the dashboard's data need `Authorization: Bearer <admin key>` (Bull Board at `/admin/queues` also takes it as the password of HTTP Basic) (API keys never open them); with none set they are open only while no `apiKeys` are set, else 403 `admin_keys_not_configured`",
  },
  {
    keys: ['rateLimit.requestsPerMinute'],
    default: 'off',
    meaning: 'per API key (per client IP when no keys are configured), shared by all API processes through Redis',
  },
  { keys: ['limits.maxBodyBytes'], default: '`1048576`', meaning: 'largest `/v1` body (413 beyond)' },
  { keys: ['limits.hookMaxBodyBytes'], default: '`262144`', meaning: 'largest `/hooks` body (413 beyond)' },
  { keys: ['limits.maxMessages'], default: '`1000`', meaning: 'most messages in one chat request (400 beyond)' },
  {
    keys: ['limits.maxAudioBytes'],
    default: '`26214400`',
    meaning: 'largest audio file on `/v1/audio/transcriptions` (25 MiB, as OpenAI; 413 beyond, read no further)',
  },
  { keys: ['limits.maxJsonDepth'], default: '`32`', meaning: 'deepest JSON nesting in a `/v1` body (400 beyond; hooks: 64)' },
  {
    keys: ['limits.headersTimeoutMs'],
    default: '`10000`',
    meaning:
      'time a client has to send the request line and headers; a slower one (a slowloris) gets 408 `request_timeout` and is disconnected',
  },
  {
    keys: ['limits.bodyTimeoutMs'],
    default: '`30000`',
    meaning:
      'time a client has to send its whole request, headers and body (a body that stalls gets 408 and the connection is closed); never bounds a streamed response. Not shorter than `headersTimeoutMs`',
  },
  {
    keys: ['health.channelCheckMs'],
    default: '`300000`',
    meaning:
      "how often each hook's credentials are checked with its platform (see [Health and status](operations.md#health-and-status)); one process checks per interval however many run; `0` turns the checks off",
  },
  {
    keys: ['metrics.enabled'],
    default: '`true`',
    meaning:
      "Prometheus metrics ([Metrics and traces](operations.md#metrics-and-traces)); `false`: no instrument is updated, `/metrics` and the worker's metrics server answer 404",
  },
  {
    keys: ['fallbacks'],
    default: '`{}`',
    meaning:
      '`{"main/gpt-4o": ["claude/claude-sonnet-4-5"]}`: when a model (or every deployment of a route) still fails after its retries (429, 5xx, unreachable, time-out), the next one serves the request, and the response\'s `model` names it; keys and entries may be routes',
  },
  {
    keys: ['routes', 'routes.<name>'],
    default: '`{}`',
    meaning:
      '`[{"model": "a/gpt-4o", "weight": 2}, "azure/gpt-4o"]`: the name `<name>` is served by these deployments (served model ids; chat or embedding models, not both), see [Load balancing](api.md#load-balancing)',
  },
  { keys: ['routes.<name>[].weight'], default: '`1`', meaning: "the deployment's share of the requests among the healthy ones" },
  {
    keys: ['cooldown.defaultMs'],
    default: '`30000`',
    meaning: 'how long a deployment that failed with 429, 5xx or a time-out is left alone when its answer names no `Retry-After`',
  },
  { keys: ['cooldown.maxMs'], default: '`300000`', meaning: 'the longest cooldown, whatever `Retry-After` asks' },
  { keys: ['cache'], default: 'off', meaning: 'present (even `{}`): the [response cache](api.md#response-cache) is on' },
  { keys: ['cache.ttlSeconds'], default: '`3600`', meaning: 'how long an answer is kept' },
  {
    keys: ['cache.policy'],
    default: '`temperature-zero`',
    meaning: '`temperature-zero`: only requests with `temperature: 0` are cached (embeddings always); `all`: every request',
  },
  {
    keys: ['cache.shareAcrossKeys'],
    default: '`false`',
    meaning: '`true`: all API keys share one cache; otherwise each key (keys with the same `name` are one tenant) has its own',
  },
  { keys: ['cache.maxEntryBytes'], default: '`1048576`', meaning: 'answers larger than this (as JSON) are not stored' },
  {
    keys: ['trustProxy'],
    default: '`false`',
    meaning: 'take the client IP for per-IP rate limits from `X-Forwarded-For` (only behind a proxy that sets it)',
  },
  {
    keys: ['redis.cluster'],
    default: '`[]`',
    meaning:
      'Redis Cluster seed nodes (`["10.0.0.1:7000", "10.0.0.2:7000"]`) instead of a `redis-cluster://` `REDIS_URL`; a password stays in `REDIS_URL`',
  },
  {
    keys: ['redis.replicaAcks'],
    default: '`0`',
    meaning:
      "accepting a hook message waits (Redis `WAIT`, at most 1 s; accepts meanwhile share the next one) until this many replicas of its master have it, so a master killed just after the platform's answer loses nothing; none answering, or fewer connected (a master just promoted): accepted all the same, with a warning; see [Shards](scaling.md#shards)",
  },
  {
    keys: ['redis.shards'],
    default: '`1`',
    meaning:
      'how many shards the hook pipeline is split into (1–256), each with its own hash tag and BullMQ queue, a conversation always in the same one: on Redis Cluster they spread over the masters (e.g. `16`); fixed for a deployment (changing it moves conversations away from their memory and unfinished jobs); `1` keeps the key names of earlier releases; see [Shards](scaling.md#shards)',
  },
  {
    keys: ['pricing.<name>.input', 'pricing.<name>.output'],
    default: '`{}`',
    meaning:
      'price per million prompt (`input`) and completion (`output`) tokens of a model (its served id `provider/model`, or a requested name such as a route), in one currency (USD); for usage costs and `costPerMonth`',
  },
  {
    keys: ['usage.enabled'],
    default: '`true`',
    meaning:
      'record requests, tokens and cost per API key, model, hook and UTC day in Redis (`GET /admin/usage`); `false` turns the records off (budgets still count)',
  },
  { keys: ['usage.retentionDays'], default: '`400`', meaning: "how long a day's usage is kept in Redis" },
  { keys: ['cors.origins'], default: '`[]` (CORS off)', meaning: 'origins allowed to call from a browser, or `["*"]`' },
  {
    keys: ['events.url'],
    default: 'off',
    meaning:
      "where every hook's delivery outcomes are POSTed (`message.delivered`, `message.failed`), see [Delivery events](channels/delivery-events.md); a hook's own `events` replaces it",
  },
  {
    keys: ['events.secret'],
    default: 'required with `events.url`',
    meaning: 'the Standard Webhooks signing secret (`whsec_` + base64) the events are signed with',
  },
  {
    keys: ['mcpServers.<name>.command'],
    default: 'none',
    meaning: 'an MCP server the worker starts and speaks to over stdio (started again when it dies); see [Tools](tools.md)',
  },
  { keys: ['mcpServers.<name>.args'], default: '`[]`', meaning: "the stdio server's arguments" },
  {
    keys: ['mcpServers.<name>.env'],
    default: '`{}`',
    meaning: "added to the stdio server's minimal environment (PATH, HOME…); its values are secrets",
  },
  { keys: ['mcpServers.<name>.url'], default: 'none', meaning: 'an MCP server reached over Streamable HTTP' },
  {
    keys: ['mcpServers.<name>.headers'],
    default: '`{}`',
    meaning:
      'sent with every request to the `url` server (`Authorization` with a token from the environment, as any key); values are secrets',
  },
  {
    keys: ['mcpServers.<name>.timeoutMs'],
    default: '`30000`',
    meaning: 'a tool call that takes longer is given up and the model is told it timed out',
  },
];

/** The keys of `hooks.<name>`: the common ones, then each channel's (the channel column is generated). */
export const HOOK_DOCS: readonly KeyDoc[] = [
  {
    keys: ['hooks.<name>.type'],
    default: 'required',
    meaning: '`generic`, `slack`, `telegram`, `discord`, `whatsapp`, `mattermost` or `teams`',
  },
  { keys: ['hooks.<name>.model'], default: '`default` (the `defaultModel`)', meaning: 'the model that answers this hook' },
  { keys: ['hooks.<name>.system'], default: 'none', meaning: 'a system prompt prepended to every conversation (never stored)' },
  {
    keys: ['hooks.<name>.rateLimit.requestsPerMinute'],
    default: 'off',
    meaning: 'inbound requests per minute to this hook, all senders together',
  },
  {
    keys: ['hooks.<name>.rateLimit.perUser'],
    default: 'off',
    meaning:
      'messages per minute from one platform user; the first one over gets a polite reply, the rest silence until the minute ends (see [Who the bot answers](access.md))',
  },
  {
    keys: ['hooks.<name>.access'],
    default: 'none: everyone, everywhere',
    meaning: 'who the bot answers; set at all, its defaults apply (see [Who the bot answers](access.md))',
  },
  {
    keys: ['hooks.<name>.access.users'],
    default: '`[]`: everyone',
    meaning: 'platform user ids allowed to talk to the bot; others are ignored, with one short reply in a direct chat',
  },
  {
    keys: ['hooks.<name>.access.groups'],
    default: '`mention`',
    meaning: 'group chats and channels: `mention` (only messages that mention the bot or reply to it), `all`, or `off`',
  },
  {
    keys: ['hooks.<name>.access.groupContext'],
    default: '`false`',
    meaning: 'with `groups: "mention"`, keep the other group messages in memory as context, unanswered',
  },
  {
    keys: ['hooks.<name>.access.dm'],
    default: '`open`',
    meaning:
      'direct messages: `open`, `off`, or `pairing` (an unknown person gets a one-time code; `POST /admin/pairing/{code}/approve`)',
  },
  {
    keys: ['hooks.<name>.media'],
    default: 'none: every file gets a short reply saying it is not taken',
    meaning: 'files sent to the bot (see [Files, images and voice](media.md)); set at all, its defaults apply',
  },
  {
    keys: ['hooks.<name>.media.images'],
    default: '`false`',
    meaning: 'images go to the model as image parts (the model must take images)',
  },
  {
    keys: ['hooks.<name>.media.vision'],
    default: '`true`',
    meaning:
      'whether the hook\'s model can see images; `false`: an image is answered "Sorry, I cannot look at images with this model" without being fetched or sent to the model',
  },
  {
    keys: ['hooks.<name>.media.audio'],
    default: 'none',
    meaning:
      "voice notes and audio transcribed by this `<provider>/<model>` (one of a provider's `audioModels`); the transcript is the message's text",
  },
  {
    keys: ['hooks.<name>.media.documents'],
    default: '`false`',
    meaning: 'documents (PDF, plain text, Markdown, CSV) read as text and given to the model with the message',
  },
  {
    keys: ['hooks.<name>.media.maxBytes'],
    default: '`20000000`',
    meaning: 'the largest file fetched; the download stops there and the sender is told the file is too big',
  },
  {
    keys: ['hooks.<name>.media.maxDocumentChars'],
    default: '`50000`',
    meaning: "where a document's text is cut (the model is told it was)",
  },
  {
    keys: ['hooks.<name>.media.allowPrivateUrls'],
    default: '`false`',
    meaning: 'generic hooks: fetch attachment URLs on private, loopback or link-local addresses (refused otherwise)',
  },
  {
    keys: ['hooks.<name>.help'],
    default: 'a line naming `/reset` and `/help`',
    meaning: "what `/help` (and Telegram's `/start`) answers",
  },
  {
    keys: ['hooks.<name>.budget'],
    default: 'off',
    meaning:
      '`{"tokensPerDay": 100000, "costPerMonth": 20}`: what the hook\'s model calls may spend; over it a message fails for good with `insufficient_quota`',
  },
  {
    keys: ['hooks.<name>.tools'],
    default: '`[]`',
    meaning:
      'tools of the `mcpServers` the bot may call: `"<server>"` (all its tools) or `"<server>/<tool>"`; anything else the model asks for is refused to it, see [Tools](tools.md)',
  },
  {
    keys: ['hooks.<name>.maxToolSteps'],
    default: '`8`',
    meaning: 'model calls per message that may ask for tools; then the model is asked once more without tools',
  },
  {
    keys: ['hooks.<name>.approve'],
    default: '`[]`',
    meaning:
      'granted tools that run only once approved (buttons in Slack, Telegram, Discord, Teams, WhatsApp, Mattermost (with `actionUrl`), or `POST /hooks/<name>/jobs/<id>/approval`), see [Tools](tools.md#approvals)',
  },
  {
    keys: ['hooks.<name>.approvers'],
    default: '`[]`: the person who asked',
    meaning:
      'user ids (Slack `U…`, Teams `29:…`, Telegram and Discord ids as strings, WhatsApp numbers, Mattermost user ids) whose click on approval buttons counts, see [Tools](tools.md#approvals)',
  },
  {
    keys: ['hooks.<name>.approvalTimeoutMs'],
    default: '`600000`',
    meaning: 'how long a call waits for approval (no worker slot held); then it is denied',
  },
  {
    keys: ['hooks.<name>.token'],
    default: 'required',
    meaning: 'callers send it as `Authorization: Bearer` or `X-Hook-Token` (8 characters or more)',
  },
  {
    keys: ['hooks.<name>.replyUrl'],
    default: 'none',
    meaning: 'where replies are POSTed; without it, read them at `GET /hooks/<name>/jobs/<id>`',
  },
  {
    keys: ['hooks.<name>.signingSecret'],
    default: 'required',
    meaning: "the app's signing secret: every request's `X-Slack-Signature` is checked with it",
  },
  {
    keys: ['hooks.<name>.botToken'],
    default: 'required (discord: none)',
    meaning:
      "Slack `xoxb-…` (scope `chat:write`), Telegram's bot token, a Mattermost bot account's access token; Discord: optional, only to check the configuration",
  },
  {
    keys: ['hooks.<name>.botUserId'],
    default: 'none',
    meaning:
      "the bot's own user id, whose messages (Mattermost: posts) are ignored; Slack: `<@id>` in a text mentions the bot (without it, the event's `authorizations[].user_id`)",
  },
  {
    keys: ['hooks.<name>.botUsername'],
    default: 'none',
    meaning: "the bot's @username (getMe's `username`): in groups, `@username` and `/command@username` address the bot",
  },
  {
    keys: ['hooks.<name>.secretToken'],
    default: 'required',
    meaning: 'the `secret_token` given to `setWebhook`, checked on every update',
  },
  { keys: ['hooks.<name>.publicKey'], default: 'required', meaning: "the application's Ed25519 public key (64 hex characters)" },
  {
    keys: ['hooks.<name>.applicationId'],
    default: 'required',
    meaning: "the application id (replies edit the interaction's original response through it)",
  },
  {
    keys: ['hooks.<name>.apiUrl'],
    default:
      'slack `https://slack.com/api`, telegram `https://api.telegram.org`, discord `https://discord.com/api/v10`, whatsapp `https://graph.facebook.com`',
    meaning: "the platform's address; a deployment or a test may point it elsewhere",
  },
  {
    keys: ['hooks.<name>.events.url', 'hooks.<name>.events.secret'],
    default: 'the global `events`',
    meaning: "this hook's [delivery events](channels/delivery-events.md) go here instead, signed with this secret",
  },
  {
    keys: ['hooks.<name>.verify.scheme'],
    default: 'required',
    meaning: '`token`, `github`, `stripe`, `standard-webhooks` or `hmac-sha256`, see [Mapped hooks](channels/mapped.md)',
  },
  {
    keys: ['hooks.<name>.verify.token'],
    default: 'required',
    meaning: "as a generic hook's `token`: `Authorization: Bearer` or `X-Hook-Token`",
  },
  {
    keys: ['hooks.<name>.verify.secret'],
    default: 'required',
    meaning: "the webhook secret (GitHub's, Stripe's `whsec_…`, Standard Webhooks' `whsec_` + base64, or your HMAC key)",
  },
  {
    keys: ['hooks.<name>.verify.toleranceSeconds'],
    default: '`300`',
    meaning: "how far `Stripe-Signature`'s timestamp may be from now, either way",
  },
  { keys: ['hooks.<name>.verify.header'], default: 'required', meaning: 'the header holding the HMAC-SHA256 of the raw body' },
  { keys: ['hooks.<name>.verify.prefix'], default: '`""`', meaning: 'text before the digest, e.g. `sha256=`' },
  { keys: ['hooks.<name>.verify.encoding'], default: '`hex`', meaning: '`hex` or `base64`' },
  {
    keys: ['hooks.<name>.verify.idHeader'],
    default: 'none',
    meaning: "the header with the sender's delivery id, remembered 24 h to refuse replays",
  },
  {
    keys: ['hooks.<name>.filter.header'],
    default: 'none',
    meaning: '`{"X-GitHub-Event": "pull_request"}`: headers that must have this value (or one of a list)',
  },
  {
    keys: ['hooks.<name>.filter.body'],
    default: 'none',
    meaning:
      '`{"action": "opened", "pull_request.draft": false}`: dot paths into the payload that must have this value (or one of a list)',
  },
  {
    keys: ['hooks.<name>.template'],
    default: 'required',
    meaning: 'the prompt, a Mustache template over the payload (`{{pull_request.title}}`)',
  },
  {
    keys: ['hooks.<name>.conversation'],
    default: 'each delivery its own',
    meaning: 'the conversation key, a Mustache template (`{{repository.full_name}}#{{pull_request.number}}`)',
  },
  {
    keys: ['hooks.<name>.deliver.replyUrl'],
    default: 'none',
    meaning: 'the reply is POSTed here as `{id, hook, conversation, text, model, created}`',
  },
  {
    keys: ['hooks.<name>.deliver.wait'],
    default: 'none',
    meaning: '`25s`, `1500ms` (at most `60s`): hold the request and answer with the job and its reply, else 202 with the job id',
  },
  {
    keys: ['hooks.<name>.deliver.hook'],
    default: 'none',
    meaning:
      'deliver through this configured hook (slack: `channel`, optional `thread`; telegram: `chat`), the other keys its target, templates allowed',
  },
  {
    keys: ['hooks.<name>.commandToken'],
    default: 'none',
    meaning: 'a second token, for a slash command that shares the hook with an outgoing webhook',
  },
  {
    keys: ['hooks.<name>.actionUrl'],
    default: 'none (no approval buttons)',
    meaning:
      "where Mattermost posts a click on an approval's buttons: this hook's address as the server reaches it, `https://<host>/hooks/<name>`",
  },
  {
    keys: ['hooks.<name>.serverUrl'],
    default: 'required',
    meaning: 'the Mattermost server, e.g. `https://chat.example.com` (replies go to its `/api/v4/posts`)',
  },
  {
    keys: ['hooks.<name>.appSecret'],
    default: 'required',
    meaning: "the Meta app's secret: every webhook's `X-Hub-Signature-256` is checked with it",
  },
  {
    keys: ['hooks.<name>.verifyToken'],
    default: 'required',
    meaning: 'the verify token entered with the callback URL, answered in the `GET` handshake (8 characters or more)',
  },
  {
    keys: ['hooks.<name>.accessToken'],
    default: 'required',
    meaning: "a system user's access token with `whatsapp_business_messaging`",
  },
  {
    keys: ['hooks.<name>.phoneNumberId'],
    default: 'none (every number)',
    meaning: 'when set, only messages to this business number are answered, and the health check reads it',
  },
  { keys: ['hooks.<name>.apiVersion'], default: '`v23.0`', meaning: 'the Graph API version in the send URL' },
  {
    keys: ['hooks.<name>.appId'],
    default: 'required',
    meaning: "the bot's Microsoft App ID: the audience of the Connector's tokens, the client id of the bot's own",
  },
  { keys: ['hooks.<name>.appPassword'], default: 'required', meaning: "the app's client secret" },
  {
    keys: ['hooks.<name>.tenantId'],
    default: 'none (multi-tenant)',
    meaning: "single-tenant bots: the tenant whose token endpoint issues the bot's tokens",
  },
  {
    keys: ['hooks.<name>.openIdMetadataUrl'],
    default: '`https://login.botframework.com/v1/.well-known/openidconfiguration`',
    meaning: "where the Connector's signing keys are listed (tests point it at a local issuer)",
  },
  {
    keys: ['hooks.<name>.tokenUrl'],
    default: '`https://login.microsoftonline.com/<tenantId or botframework.com>/oauth2/v2.0/token`',
    meaning: 'the client-credentials token endpoint',
  },
  {
    keys: ['hooks.<name>.stream'],
    default: '`true`',
    meaning:
      'show the reply while the model writes it (see [Live replies](channels/live-replies.md)); `false`: the whole reply in one go, as plain text',
  },
  {
    keys: ['hooks.<name>.streamIntervalMs'],
    default: '`1000` (generic: `100`)',
    meaning: 'shortest time between two updates of a reply being written (an edit, an append, a draft, a feed event)',
  },
  {
    keys: ['hooks.<name>.sendLimits.chat.count', 'hooks.<name>.sendLimits.chat.perMs'],
    default: '`1`, `1000`',
    meaning: 'telegram: sends to one chat (a user, or a group) per window: 1 per second',
  },
  {
    keys: ['hooks.<name>.sendLimits.group.count', 'hooks.<name>.sendLimits.group.perMs'],
    default: '`20`, `60000`',
    meaning: 'telegram: sends to one group per window: 20 per minute',
  },
  {
    keys: ['hooks.<name>.sendLimits.channel.count', 'hooks.<name>.sendLimits.channel.perMs'],
    default: '`1`, `1000`',
    meaning: 'slack, mattermost: posts (and updates) to one channel per window: about 1 per second',
  },
  {
    keys: ['hooks.<name>.sendLimits.interaction.count', 'hooks.<name>.sendLimits.interaction.perMs'],
    default: '`5`, `5000`',
    meaning: 'discord: edits and follow-ups of one interaction per window: 5 per 5 s',
  },
  {
    keys: ['hooks.<name>.budget.tokensPerDay'],
    default: 'off',
    meaning: "tokens this hook's model calls may use per UTC day; a message over it fails for good with `insufficient_quota`",
  },
  {
    keys: ['hooks.<name>.budget.costPerMonth'],
    default: 'off',
    meaning: "cost this hook's model calls may spend per UTC calendar month; the same",
  },
  {
    keys: ['hooks.<name>.sendLimits.customer.count', 'hooks.<name>.sendLimits.customer.perMs'],
    default: '`5`, `30000`',
    meaning:
      "whatsapp: messages to one customer from one number per window: Meta's pair rate (about one per 6 s) with a short burst",
  },
  {
    keys: ['hooks.<name>.sendLimits.conversation.count', 'hooks.<name>.sendLimits.conversation.perMs'],
    default: '`3`, `3000`',
    meaning: "teams: replies to one conversation per window, under Teams' per-conversation throttling",
  },
];
