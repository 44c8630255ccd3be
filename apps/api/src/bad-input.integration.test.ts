import { createHmac } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import {
  discordCommand,
  discordKeys,
  discordPing,
  discordSignedHeaders,
  type FakeBotFramework,
  formBody,
  type LocalServer,
  mattermostOutgoing,
  mattermostSlashCommand,
  slackMessageEvent,
  slackSignedHeaders,
  startFakeBotFramework,
  startOpenAIUpstream,
  TEAMS_APP_ID,
  TELEGRAM_SECRET_HEADER,
  teamsConversationUpdate,
  teamsMessageActivity,
  telegramUpdate,
  whatsappSignature,
  whatsappStatusWebhook,
  whatsappTextWebhook,
} from '@switchboard/testing';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  anyBody,
  anyValue,
  authorization,
  chatBody,
  chatLikeBody,
  commonHeaders,
  contentType,
  describeRequest,
  embeddingsBody,
  headersOf,
  headerText,
  longHeaderText,
  longSegment,
  method,
  mutated,
  pollutionMember,
  query,
  responsesBody,
  responsesLikeBody,
  segment,
  segments,
  serialize,
  shown,
  smallBody,
  text,
  VALID_CHAT,
  withMember,
} from './test-support/bad-requests.js';
import { createRawClient, type RawClient, type RawRequest, type RawResponse } from './test-support/raw-client.js';
import { startGateway, type TestGateway } from './test-support/start-gateway.js';

/**
 * The "bad input" rules, checked against generated requests: whatever arrives at /v1 or /hooks,
 * the gateway answers below 500, every error is the OpenAI error JSON, no prototype is polluted,
 * and the process stays up. One gateway takes every request, so damage left by one request (a
 * polluted prototype, a wedged connection) shows in the ones after it.
 */

const CLIENT_KEY = 'fuzz-client-key-0123456789';
const HOOK_TOKEN = 'fuzz-hook-token-0123456789';
const SLACK_SECRET = 'fuzz-slack-signing-secret-0123';
const TELEGRAM_SECRET = 'fuzz-telegram-secret-0123';
const WHATSAPP_SECRET = 'fuzz-whatsapp-app-secret-0123';
const WHATSAPP_VERIFY = 'fuzz-whatsapp-verify-0123';
const MATTERMOST_TOKEN = 'fuzz-mattermost-token-0123';
const TEAMS_SERVICE_URL = 'https://smba.trafficmanager.net/emea/';
const ORIGIN = 'https://app.example.com';
const GITHUB_SECRET = 'fuzz-github-webhook-secret';
const STRIPE_SECRET = 'whsec_fuzz_stripe_secret_0123';
const SVIX_SECRET = 'whsec_LPrFnJMJ9lSERQzCPnkGJ98erJc81bXH';
const HOOKS = ['generic', 'slack', 'telegram', 'discord', 'whatsapp', 'mattermost', 'teams', 'github', 'stripe', 'svix'] as const;
type HookName = (typeof HOOKS)[number];
/** Runs of the request properties; together well over the 10,000 requests the issue asks for. */
const RUNS = { chat: 5000, responses: 2500, embeddings: 1500, models: 2500, hooks: 5500, paths: 2000, handshake: 300 };

const discord = discordKeys();
const otherDiscordKey = discordKeys().privateKey;
let upstream: LocalServer;
let botFramework: FakeBotFramework;
/** Connector JWTs signed once (signing per run would only slow the property down). */
let teamsTokens: Record<'valid' | 'foreign' | 'expired' | 'audience' | 'other-service', string>;
let gateway: TestGateway;
let client: RawClient;
let prototypeNames: { object: string[]; array: string[] };

beforeAll(async () => {
  prototypeNames = { object: Object.getOwnPropertyNames(Object.prototype), array: Object.getOwnPropertyNames(Array.prototype) };
  upstream = await startOpenAIUpstream();
  // Teams tokens are checked against a local issuer's keys, so valid ones get past the signature.
  botFramework = await startFakeBotFramework({ appId: TEAMS_APP_ID, appPassword: 'fuzz-teams-password-0123' });
  teamsTokens = {
    valid: await botFramework.sign(TEAMS_SERVICE_URL),
    foreign: await botFramework.sign(TEAMS_SERVICE_URL, { foreign: true }),
    expired: await botFramework.sign(TEAMS_SERVICE_URL, { expiresIn: '-1h' }),
    audience: await botFramework.sign(TEAMS_SERVICE_URL, { audience: 'another-app' }),
    'other-service': await botFramework.sign('https://attacker.example.com/'),
  };
  // No worker runs, so nothing is delivered; the platform URLs point nowhere all the same.
  const nowhere = 'http://127.0.0.1:9';
  gateway = await startGateway({
    config: {
      defaultModel: 'mock/gpt-4o-mini',
      providers: {
        mock: {
          type: 'openai',
          baseUrl: `${upstream.url}/v1`,
          apiKey: 'sk-fuzz-upstream',
          models: ['gpt-4o-mini'],
          embeddingModels: ['embed'],
        },
      },
      routes: { pair: ['mock/gpt-4o-mini', 'local/echo'] },
      cache: {},
      apiKeys: [CLIENT_KEY],
      cors: { origins: [ORIGIN] },
      hooks: {
        generic: { type: 'generic', token: HOOK_TOKEN },
        slack: { type: 'slack', signingSecret: SLACK_SECRET, botToken: 'xoxb-fuzz-bot-token', apiUrl: nowhere },
        telegram: { type: 'telegram', botToken: '123456:fuzz-bot-token', secretToken: TELEGRAM_SECRET, apiUrl: nowhere },
        discord: { type: 'discord', publicKey: discord.publicKeyHex, applicationId: '1100000000000000001', apiUrl: nowhere },
        // Mapped hooks, one per signature scheme with a timestamp or a library of its own.
        github: {
          type: 'mapped',
          verify: { scheme: 'github', secret: GITHUB_SECRET },
          filter: { header: { 'X-GitHub-Event': 'pull_request' }, body: { action: ['opened', 'reopened'] } },
          template: 'PR #{{pull_request.number}}: {{pull_request.title}}',
          conversation: '{{repository.full_name}}#{{pull_request.number}}',
          deliver: { hook: 'slack', channel: 'C123' },
        },
        stripe: {
          type: 'mapped',
          verify: { scheme: 'stripe', secret: STRIPE_SECRET },
          template: '{{type}} for {{data.object.customer}}',
          deliver: { replyUrl: nowhere },
        },
        svix: {
          type: 'mapped',
          verify: { scheme: 'standard-webhooks', secret: SVIX_SECRET },
          template: '{{#alerts}}{{title}} {{/alerts}}',
          conversation: '{{group}}',
          deliver: { hook: 'telegram', chat: '{{chat}}' },
        },
        whatsapp: {
          type: 'whatsapp',
          appSecret: WHATSAPP_SECRET,
          verifyToken: WHATSAPP_VERIFY,
          accessToken: 'EAAG-fuzz-access-token',
          apiUrl: nowhere,
        },
        mattermost: { type: 'mattermost', token: MATTERMOST_TOKEN, serverUrl: nowhere, botToken: 'fuzz-mattermost-bot-token' },
        teams: {
          type: 'teams',
          appId: TEAMS_APP_ID,
          appPassword: 'fuzz-teams-password-0123',
          openIdMetadataUrl: `${botFramework.url}${botFramework.metadataPath}`,
          tokenUrl: nowhere,
        },
      },
    },
    env: { LOG_LEVEL: 'info' },
  });
  client = createRawClient(gateway.url);
});

afterAll(async () => {
  client?.close();
  await gateway?.close();
  await upstream?.close();
  await botFramework?.close();
});

// ---------------------------------------------------------------------------------------------
// The rules every answer is held to

/** Exactly `{"error":{"message","type","param","code"}}`, with a message to read. */
function isErrorBody(json: unknown): boolean {
  if (!json || typeof json !== 'object' || Object.keys(json).join() !== 'error') return false;
  const error = (json as { error: unknown }).error;
  if (!error || typeof error !== 'object') return false;
  const { message, type, param, code } = error as Record<string, unknown>;
  return (
    Object.keys(error).sort().join() === 'code,message,param,type' &&
    typeof message === 'string' &&
    message.length > 0 &&
    typeof type === 'string' &&
    type.length > 0 &&
    (param === null || typeof param === 'string') &&
    (code === null || typeof code === 'string')
  );
}

/** The rules below as one test, without building the report: most of thousands of answers pass. */
function isSaneAnswer(request: RawRequest, response: RawResponse): boolean {
  const sameNames = (names: string[], expected: string[]) =>
    names.length === expected.length && names.every((name, i) => name === expected[i]);
  if (response.status >= 500) return false;
  if (response.status >= 400) {
    if (!/^application\/json(;|$)/.test(response.headers['content-type'] ?? '')) return false;
    if (request.method !== 'HEAD') {
      try {
        if (!isErrorBody(JSON.parse(response.text))) return false;
      } catch {
        return false;
      }
    }
  }
  return (
    sameNames(Object.getOwnPropertyNames(Object.prototype), prototypeNames.object) &&
    sameNames(Object.getOwnPropertyNames(Array.prototype), prototypeNames.array)
  );
}

function expectSaneAnswer(request: RawRequest, response: RawResponse): void {
  // The exchange's description and vitest's assertions cost a tenth of this file's CPU when made
  // for every answer: they are made for an answer that breaks a rule, and report it.
  if (isSaneAnswer(request, response)) return;
  const exchange = `${describeRequest(request)}\n→ ${response.status} ${response.headers['content-type']} ${response.text.slice(0, 300)}`;
  expect(response.status, exchange).toBeLessThan(500);
  if (response.status >= 400) {
    expect(response.headers['content-type'], exchange).toMatch(/^application\/json(;|$)/);
    if (request.method !== 'HEAD') {
      let json: unknown;
      try {
        json = JSON.parse(response.text);
      } catch {
        expect.fail(`the error body is not JSON: ${exchange}`);
      }
      expect(isErrorBody(json), exchange).toBe(true);
    }
  }
  // Checked after every request, so a polluting request is named by its own counterexample.
  expect(Object.getOwnPropertyNames(Object.prototype), exchange).toEqual(prototypeNames.object);
  expect(Object.getOwnPropertyNames(Array.prototype), exchange).toEqual(prototypeNames.array);
}

async function sendAndCheck(request: RawRequest): Promise<void> {
  // The upstream records every request; 1 MiB bodies would add up over thousands of runs.
  upstream.requests.length = 0;
  expectSaneAnswer(request, await client.send(request));
}

// ---------------------------------------------------------------------------------------------
// Hooks: each platform's authentication (valid, wrong, junk or missing) and payloads

const hookAuth = fc.record({
  generic: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom({ authorization: `Bearer ${HOOK_TOKEN}` }, { 'x-hook-token': HOOK_TOKEN }) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        {},
        { authorization: `Bearer ${HOOK_TOKEN}x` },
        { authorization: `Basic ${HOOK_TOKEN}` },
        { 'x-hook-token': HOOK_TOKEN.slice(1) },
        { authorization: 'Bearer ', 'x-hook-token': '' },
      ),
    },
    {
      weight: 1,
      arbitrary: fc.record({ authorization: headerText(200), 'x-hook-token': headerText(200) }, { requiredKeys: [] }),
    },
  ),
  slack: fc.oneof(
    { weight: 6, arbitrary: fc.constant('valid' as const) },
    { weight: 2, arbitrary: fc.constantFrom('stale' as const, 'other-secret' as const, 'missing' as const) },
    {
      weight: 1,
      arbitrary: fc.record(
        { 'x-slack-signature': headerText(100), 'x-slack-request-timestamp': fc.oneof(headerText(20), fc.integer().map(String)) },
        { requiredKeys: [] },
      ),
    },
  ),
  telegram: fc.oneof(
    { weight: 6, arbitrary: fc.constant({ [TELEGRAM_SECRET_HEADER]: TELEGRAM_SECRET }) },
    { weight: 2, arbitrary: fc.constantFrom({}, { [TELEGRAM_SECRET_HEADER]: `${TELEGRAM_SECRET} ` }) },
    { weight: 1, arbitrary: headerText(100).map((value) => ({ [TELEGRAM_SECRET_HEADER]: value })) },
  ),
  discord: fc.oneof(
    { weight: 6, arbitrary: fc.record({ timestamp: fc.oneof(fc.nat().map(String), headerText(30)) }) },
    { weight: 2, arbitrary: fc.constantFrom('other-key' as const, 'missing' as const) },
    {
      weight: 1,
      arbitrary: fc
        .record(
          {
            'x-signature-ed25519': fc.oneof(fc.stringMatching(/^[0-9a-f]{128}$/), headerText(140)),
            'x-signature-timestamp': headerText(30),
          },
          { requiredKeys: [] },
        )
        .map((junk) => ({ junk })),
    },
  ),
  // The mapped hooks' schemes: valid, stale, under another secret, missing, or junk headers.
  github: fc.oneof(
    { weight: 6, arbitrary: fc.constant('valid' as const) },
    { weight: 2, arbitrary: fc.constantFrom('other-secret' as const, 'missing' as const) },
    { weight: 1, arbitrary: fc.record({ 'x-hub-signature-256': headerText(100), 'x-github-delivery': headerText(300) }) },
  ),
  stripe: fc.oneof(
    { weight: 6, arbitrary: fc.constant('valid' as const) },
    { weight: 2, arbitrary: fc.constantFrom('stale' as const, 'other-secret' as const, 'missing' as const) },
    { weight: 1, arbitrary: fc.record({ 'stripe-signature': headerText(200) }) },
  ),
  svix: fc.oneof(
    { weight: 6, arbitrary: fc.constant('valid' as const) },
    { weight: 2, arbitrary: fc.constantFrom('stale' as const, 'other-secret' as const, 'missing' as const) },
    {
      weight: 1,
      arbitrary: fc.record(
        { 'webhook-id': headerText(300), 'webhook-timestamp': headerText(20), 'webhook-signature': headerText(200) },
        { requiredKeys: [] },
      ),
    },
  ),
});

/** The new channels' credentials: valid, wrong, junk or missing (Mattermost's token is in the body, see below). */
const newHookAuth = fc.record({
  whatsapp: fc.oneof(
    { weight: 6, arbitrary: fc.constant('valid' as const) },
    { weight: 2, arbitrary: fc.constantFrom('other-secret' as const, 'missing' as const) },
    { weight: 1, arbitrary: headerText(100).map((value) => ({ 'x-hub-signature-256': value })) },
  ),
  teams: fc.oneof(
    { weight: 6, arbitrary: fc.constant('valid' as const) },
    {
      weight: 2,
      arbitrary: fc.constantFrom('foreign' as const, 'expired' as const, 'audience' as const, 'other-service' as const),
    },
    {
      weight: 1,
      arbitrary: fc.oneof(
        headerText(200),
        headerText(40).map((value) => `Bearer ${value}`),
      ),
    },
  ),
});

type HookAuth = typeof hookAuth extends fc.Arbitrary<infer T> ? T : never;
type NewHookAuth = typeof newHookAuth extends fc.Arbitrary<infer T> ? T : never;

/** WhatsApp's signature over the exact body, and Teams' Authorization (only for the Teams hook: it is the generic hook's header too). */
function newHookAuthHeaders(hook: HookName, auth: NewHookAuth, body: Buffer): Record<string, string> {
  const headers: Record<string, string> = {};
  if (auth.whatsapp === 'valid') headers['x-hub-signature-256'] = whatsappSignature(WHATSAPP_SECRET, body);
  else if (auth.whatsapp === 'other-secret') headers['x-hub-signature-256'] = whatsappSignature(`${WHATSAPP_SECRET}x`, body);
  else if (typeof auth.whatsapp === 'object') Object.assign(headers, auth.whatsapp);
  if (hook !== 'teams') return headers;
  const { teams } = auth;
  headers.authorization = teams in teamsTokens ? `Bearer ${teamsTokens[teams as keyof typeof teamsTokens]}` : teams;
  return headers;
}

/** Every platform's headers at once (each hook reads only its own), signed over the exact body. */
function hookAuthHeaders(auth: HookAuth, body: Buffer): Record<string, string> {
  const headers = headersOf(auth.generic, auth.telegram);
  const now = Date.now();
  if (auth.slack === 'valid') Object.assign(headers, slackSignedHeaders(SLACK_SECRET, body, now));
  else if (auth.slack === 'stale') Object.assign(headers, slackSignedHeaders(SLACK_SECRET, body, now - 10 * 60_000));
  else if (auth.slack === 'other-secret') Object.assign(headers, slackSignedHeaders(`${SLACK_SECRET}-other`, body, now));
  else if (typeof auth.slack === 'object') Object.assign(headers, headersOf(auth.slack));
  const { discord: signing } = auth;
  if (signing === 'other-key')
    Object.assign(headers, discordSignedHeaders(otherDiscordKey, body, String(Math.floor(now / 1000))));
  else if (typeof signing === 'object' && 'timestamp' in signing) {
    Object.assign(headers, discordSignedHeaders(discord.privateKey, body, signing.timestamp));
  } else if (typeof signing === 'object') Object.assign(headers, headersOf(signing.junk));
  Object.assign(headers, mappedAuthHeaders(auth, body, now));
  return headers;
}

/** The mapped hooks' signatures: GitHub's, Stripe's and Standard Webhooks', each over the exact body. */
function mappedAuthHeaders(auth: HookAuth, body: Buffer, now: number): Record<string, string> {
  const headers: Record<string, string> = {};
  const hmac = (secret: string, text: string | Buffer) => createHmac('sha256', secret).update(text).digest('hex');
  if (auth.github === 'valid' || auth.github === 'other-secret') {
    const secret = auth.github === 'valid' ? GITHUB_SECRET : `${GITHUB_SECRET}-other`;
    Object.assign(headers, { 'x-hub-signature-256': `sha256=${hmac(secret, body)}`, 'x-github-delivery': `d-${now}` });
  } else if (typeof auth.github === 'object') Object.assign(headers, headersOf(auth.github));
  headers['x-github-event'] = 'pull_request';
  const seconds = Math.floor(now / 1000) - (auth.stripe === 'stale' || auth.svix === 'stale' ? 600 : 0);
  if (auth.stripe === 'valid' || auth.stripe === 'stale' || auth.stripe === 'other-secret') {
    const secret = auth.stripe === 'other-secret' ? `${STRIPE_SECRET}-other` : STRIPE_SECRET;
    headers['stripe-signature'] = `t=${seconds},v1=${hmac(secret, Buffer.concat([Buffer.from(`${seconds}.`), body]))}`;
  } else if (typeof auth.stripe === 'object') Object.assign(headers, headersOf(auth.stripe));
  if (auth.svix === 'valid' || auth.svix === 'stale' || auth.svix === 'other-secret') {
    const secret = auth.svix === 'other-secret' ? 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' : SVIX_SECRET;
    const id = `msg_${now}_${Math.random()}`;
    Object.assign(headers, {
      'webhook-id': id,
      'webhook-timestamp': String(seconds),
      'webhook-signature': new Webhook(secret).sign(id, new Date(seconds * 1000), body),
    });
  } else if (typeof auth.svix === 'object') Object.assign(headers, headersOf(auth.svix));
  return headers;
}

const slackSample = slackMessageEvent();
const telegramSample = telegramUpdate();
const discordSample = discordCommand();
const githubSample = {
  action: 'opened',
  pull_request: { number: 7, title: 'Fix it', draft: false },
  repository: { full_name: 'acme/widgets' },
};
const stripeSample = { id: 'evt_1', type: 'invoice.paid', data: { object: { customer: 'cus_1' } } };
const svixSample = { alerts: [{ title: 'disk full' }], group: 'db', chat: '-1001234567890' };
const whatsappSample = whatsappTextWebhook();
const whatsappMessage = whatsappSample.entry[0].changes[0].value.messages[0]!;
const mattermostFields = {
  token: fc.constantFrom(MATTERMOST_TOKEN, MATTERMOST_TOKEN, `${MATTERMOST_TOKEN}x`, ''),
  text: fc.string(),
  channel_id: fc.string(),
  user_id: fc.string(),
  post_id: fc.string(),
  trigger_word: fc.string({ maxLength: 5 }),
  root_id: fc.string(),
  trigger_id: fc.string(),
};
const teamsSample = teamsMessageActivity(TEAMS_SERVICE_URL);

/** The platforms' real payloads with a field or two replaced by anything. */
const platformBodies: Record<HookName, fc.Arbitrary<Record<string, unknown>>> = {
  generic: mutated(
    { from: 'fuzz-user', text: 'hi' },
    { from: fc.string({ maxLength: 300 }), text: fc.string(), action: fc.constantFrom('chat', 'reset', 'delete') },
  ),
  slack: fc.oneof(
    mutated(slackSample, {
      type: fc.constantFrom('event_callback', 'url_verification', 'app_rate_limited'),
      challenge: fc.string(),
      event_id: fc.string(),
      event: mutated(slackSample.event, {
        type: fc.constantFrom('message', 'app_mention', 'reaction_added'),
        text: fc.string(),
        user: fc.string(),
        channel: fc.string(),
        ts: fc.string(),
        thread_ts: fc.string(),
        bot_id: fc.string(),
        subtype: fc.constantFrom('bot_message', 'message_changed'),
      }),
    }),
    fc.record({ type: fc.constant('url_verification'), challenge: fc.oneof(fc.string(), anyValue) }),
  ),
  telegram: mutated(telegramSample, {
    update_id: fc.integer(),
    message: mutated(telegramSample.message, {
      text: fc.string(),
      chat: fc.record({ id: fc.integer(), type: fc.constantFrom('private', 'group', 'supergroup', 'channel') }),
      message_id: fc.integer(),
      entities: fc.array(fc.record({ type: fc.string(), offset: fc.integer(), length: fc.integer() }), { maxLength: 2 }),
    }),
    edited_message: anyValue,
    channel_post: anyValue,
  }),
  discord: fc.oneof(
    mutated(discordSample, {
      type: fc.constantFrom(1, 2, 3, 4, 5),
      token: fc.string(),
      data: mutated(discordSample.data as Record<string, unknown>, {
        name: fc.string(),
        options: fc.array(fc.record({ name: fc.string(), type: fc.integer(), value: fc.oneof(fc.string(), anyValue) }), {
          maxLength: 3,
        }),
      }),
    }),
    mutated(discordPing(), { type: fc.constantFrom(1, 2) }),
  ),
  github: mutated(githubSample, {
    action: fc.constantFrom('opened', 'closed', 'reopened'),
    pull_request: mutated(githubSample.pull_request, { number: fc.integer(), title: fc.string() }),
    repository: fc.record({ full_name: fc.string({ maxLength: 600 }) }),
  }),
  stripe: mutated(stripeSample, {
    id: fc.oneof(fc.string(), fc.string({ minLength: 257, maxLength: 300 })),
    type: fc.string(),
    data: fc.record({ object: fc.record({ customer: fc.oneof(fc.string(), anyValue) }) }),
  }),
  svix: mutated(svixSample, {
    alerts: fc.array(fc.record({ title: fc.oneof(fc.string(), anyValue) }), { maxLength: 3 }),
    group: fc.oneof(fc.string(), anyValue),
    chat: fc.oneof(fc.string(), fc.integer().map(String), anyValue),
  }),
  whatsapp: fc.oneof(
    mutated(whatsappSample, {
      object: fc.constantFrom('whatsapp_business_account', 'page', ''),
      entry: fc.array(
        fc.record({
          changes: fc.array(
            fc.record({
              field: fc.constantFrom('messages', 'account_update'),
              value: mutated(whatsappSample.entry[0].changes[0].value, {
                messages: fc.array(
                  mutated(whatsappMessage, {
                    from: fc.string(),
                    id: fc.string(),
                    type: fc.constantFrom('text', 'image', 'reaction'),
                    text: fc.record({ body: fc.string() }),
                  }),
                  { maxLength: 3 },
                ),
                metadata: fc.record({ phone_number_id: fc.string() }),
              }),
            }),
            { maxLength: 2 },
          ),
        }),
        { maxLength: 2 },
      ),
    }),
    mutated(whatsappStatusWebhook(), {}),
  ),
  mattermost: fc.oneof(
    mutated({ ...mattermostOutgoing(), token: MATTERMOST_TOKEN }, mattermostFields),
    mutated({ ...mattermostSlashCommand(), token: MATTERMOST_TOKEN }, mattermostFields),
  ),
  teams: fc.oneof(
    mutated(teamsSample, {
      type: fc.constantFrom('message', 'conversationUpdate', 'invoke', 'typing'),
      id: fc.string(),
      serviceUrl: fc.constantFrom(TEAMS_SERVICE_URL, 'https://attacker.example.com/', ''),
      text: fc.string(),
      conversation: fc.record({ id: fc.string() }),
      from: fc.record({ id: fc.string() }),
      recipient: fc.record({ id: fc.string() }),
      entities: fc.array(
        fc.record({
          type: fc.constantFrom('mention', 'clientInfo'),
          text: fc.string(),
          mentioned: fc.record({ id: fc.string() }),
        }),
        { maxLength: 2 },
      ),
    }),
    mutated(teamsConversationUpdate(TEAMS_SERVICE_URL), {}),
  ),
};

/** Mattermost's bodies as the form its slash commands (and some outgoing webhooks) post. */
const mattermostForm = platformBodies.mattermost.map((fields) =>
  text(
    formBody(
      Object.fromEntries(
        Object.entries(fields).map(([name, value]) => [name, typeof value === 'string' ? value : serialize(value)]),
      ),
    ),
  ),
);
const FORM_TYPE = 'application/x-www-form-urlencoded';

/** A body for `hook`'s platform (maybe with a polluting member), any bad body, or none. */
const hookBodyFor = (hook: HookName) =>
  fc.oneof(
    {
      weight: 8,
      arbitrary: fc
        .tuple(platformBodies[hook], fc.option(pollutionMember, { freq: 5, nil: undefined }))
        .map(([body, member]) => text(member ? withMember(serialize(body), member) : serialize(body))),
    },
    { weight: hook === 'mattermost' ? 6 : 0, arbitrary: mattermostForm },
    { weight: 8, arbitrary: anyBody },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );

const hookName = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom(...HOOKS) },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/) },
  { weight: 1, arbitrary: segment },
  { weight: 1, arbitrary: longSegment },
  {
    weight: 1,
    arbitrary: fc.constantFrom('GENERIC', '%67eneric', 'generic%20', 'generic/', 'generic/jobs', '__proto__', 'slack%00', ''),
  },
);

/** POSTs to a /v1 route: mostly its own (mutated) bodies, else any bad body or none. */
function v1Post(path: string, [mutatedBody, fromScratch]: [fc.Arbitrary<Buffer>, fc.Arbitrary<Buffer>]) {
  return fc
    .record({
      body: fc.oneof(
        { weight: 8, arbitrary: mutatedBody },
        { weight: 2, arbitrary: fromScratch },
        { weight: 8, arbitrary: anyBody },
        { weight: 1, arbitrary: fc.constant(undefined) },
      ),
      type: contentType,
      authorization: authorization(CLIENT_KEY),
      common: commonHeaders(ORIGIN),
      query,
    })
    .map(({ body, type, authorization, common, query }) =>
      shown({
        method: 'POST',
        path: `${path}${query}`,
        headers: headersOf(common, { 'content-type': type, authorization }),
        ...(body ? { body } : {}),
      }),
    );
}

const chatPost = v1Post('/v1/chat/completions', [chatBody, chatLikeBody]);
const responsesPost = v1Post('/v1/responses', [responsesBody, responsesLikeBody]);
const embeddingsPost = v1Post('/v1/embeddings', [embeddingsBody, embeddingsBody]);

/** How many generated requests the gateway must have taken before the last check looks at it. */
const GENERATED_AT_LEAST = 10_000;

// ---------------------------------------------------------------------------------------------

describe('bad input', { timeout: 120_000 }, () => {
  it('answers POST /v1/chat/completions below 500, errors in the OpenAI shape, whatever the body and headers', async () => {
    await fc.assert(fc.asyncProperty(chatPost, sendAndCheck), { numRuns: RUNS.chat });
  });

  it('answers POST /v1/responses below 500, errors in the OpenAI shape, whatever the body and headers', async () => {
    await fc.assert(fc.asyncProperty(responsesPost, sendAndCheck), { numRuns: RUNS.responses });
  });

  it('answers POST /v1/embeddings below 500, errors in the OpenAI shape, whatever the body and headers', async () => {
    await fc.assert(fc.asyncProperty(embeddingsPost, sendAndCheck), { numRuns: RUNS.embeddings });
  });

  it('answers any method on /v1/models and any path under /v1/ below 500, errors in the OpenAI shape', async () => {
    const path = fc.oneof(
      { weight: 3, arbitrary: fc.constant('/v1/models') },
      { weight: 3, arbitrary: segments(4).map((parts) => `/v1/models/${parts.join('/')}`) },
      { weight: 2, arbitrary: segments(5).map((parts) => `/v1/${parts.join('/')}`) },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          '/v1',
          '/v1/',
          '/v1/models/',
          '/v1//models',
          '/V1/MODELS',
          '/v1/models/mock/gpt-4o-mini',
          '/v1/models/default',
          '/v1/models/local%2Fecho',
          '/v1/./models',
          '/v1/../v1/models',
          '/v1/models/%2e%2e/chat/completions',
          '/v1/chat/completions/',
          '/v1/responses/',
          '/v1/responses/resp_123',
          '/v1/embeddings/',
          '/v1/models/pair',
          '/v1/models/mock/embed',
        ),
      },
    );
    const request = fc
      .record({
        method,
        path,
        query,
        body: fc.option(smallBody, { freq: 3, nil: undefined }),
        type: contentType,
        authorization: authorization(CLIENT_KEY),
        common: commonHeaders(ORIGIN),
      })
      .map(({ method, path, query, body, type, authorization, common }) =>
        shown({
          method,
          path: path + query,
          headers: headersOf(common, { 'content-type': type, authorization }),
          ...(body ? { body } : {}),
        }),
      );
    await fc.assert(fc.asyncProperty(request, sendAndCheck), { numRuns: RUNS.models });
  });

  it('answers POST /hooks/<name> below 500, errors in the OpenAI shape, whatever the name, signature and body', async () => {
    const request = fc
      .constantFrom(...HOOKS)
      .chain((hook) =>
        fc.record({
          hook: fc.constant(hook),
          name: fc.oneof({ weight: 6, arbitrary: fc.constant(hook) }, { weight: 1, arbitrary: hookName }),
          query,
          body: hookBodyFor(hook),
          auth: hookAuth,
          newAuth: newHookAuth,
          type: hook === 'mattermost' ? fc.oneof(contentType, fc.constant(FORM_TYPE)) : contentType,
          common: commonHeaders(ORIGIN),
          idempotencyKey: fc.option(fc.oneof(headerText(40), longHeaderText), { freq: 4, nil: undefined }),
        }),
      )
      .map(({ hook, name, query, body, auth, newAuth, type, common, idempotencyKey }) =>
        shown({
          method: 'POST',
          path: `/hooks/${name}${query}`,
          headers: headersOf(
            common,
            hookAuthHeaders(auth, body ?? Buffer.alloc(0)),
            newHookAuthHeaders(hook, newAuth, body ?? Buffer.alloc(0)),
            {
              'content-type': type,
              'idempotency-key': idempotencyKey,
            },
          ),
          ...(body ? { body } : {}),
        }),
      );
    await fc.assert(fc.asyncProperty(request, sendAndCheck), { numRuns: RUNS.hooks });
  });

  it('answers any method on generated paths under /hooks/ and the root below 500, errors in the OpenAI shape', async () => {
    const path = fc.oneof(
      { weight: 3, arbitrary: fc.tuple(hookName, segment).map(([name, id]) => `/hooks/${name}/jobs/${id}`) },
      { weight: 3, arbitrary: segments(5).map((parts) => `/hooks/${parts.join('/')}`) },
      { weight: 2, arbitrary: segments(4).map((parts) => `/${parts.join('/')}`) },
      {
        weight: 1,
        arbitrary: fc.constantFrom('/', '//', '/health', '/health/', '/ready', '/status', '/hooks', '/hooks/', '/hooks//jobs/'),
      },
    );
    const request = fc
      .record({
        method,
        path,
        query,
        body: fc.option(smallBody, { freq: 3, nil: undefined }),
        type: contentType,
        hookToken: hookAuth.map((auth) => auth.generic),
        authorization: authorization(CLIENT_KEY),
        common: commonHeaders(ORIGIN),
      })
      .map(({ method, path, query, body, type, hookToken, authorization, common }) =>
        shown({
          method,
          path: path + query,
          headers: headersOf(common, { authorization }, hookToken, { 'content-type': type }),
          ...(body ? { body } : {}),
        }),
      );
    await fc.assert(fc.asyncProperty(request, sendAndCheck), { numRuns: RUNS.paths });
  });

  it('answers GET /hooks/<name> (the WhatsApp handshake) below 500, errors in the OpenAI shape, whatever the query', async () => {
    const hubValue = fc.oneof(
      fc.constantFrom('subscribe', WHATSAPP_VERIFY, '1158201444', ''),
      fc.string({ maxLength: 300 }),
      headerText(40),
    );
    const request = fc
      .record({
        name: fc.oneof({ weight: 4, arbitrary: fc.constant('whatsapp') }, { weight: 1, arbitrary: hookName }),
        hub: fc.dictionary(fc.constantFrom('hub.mode', 'hub.verify_token', 'hub.challenge', 'hub.x'), hubValue, { maxKeys: 4 }),
        query,
        common: commonHeaders(ORIGIN),
      })
      .map(({ name, hub, query, common }) => {
        const search = new URLSearchParams(hub).toString();
        return shown({ method: 'GET', path: `/hooks/${name}${search ? `?${search}` : query}`, headers: headersOf(common) });
      });
    await fc.assert(fc.asyncProperty(request, sendAndCheck), { numRuns: RUNS.handshake });
  });

  // Kept apart so that a failure here leaves the properties above their full run.
  it('answers a body in any Content-Encoding below 500, errors in the OpenAI shape', async () => {
    const request = fc
      .record({
        path: fc.constantFrom('/v1/chat/completions', '/v1/responses', '/v1/embeddings', '/v1/models', '/hooks/generic'),
        method: fc.constantFrom('POST', 'PUT'),
        encoding: fc.oneof(
          fc.constantFrom('gzip', 'x-gzip', 'deflate', 'br', 'identity', 'compress', 'zstd', 'gzip, gzip', 'GZIP', ''),
          headerText(20),
        ),
        compressed: fc.boolean(),
        body: fc.oneof(fc.constant(text(JSON.stringify(VALID_CHAT))), smallBody),
      })
      .map(({ path, method, encoding, compressed, body }) =>
        shown({
          method,
          path,
          headers: {
            'content-type': 'application/json',
            'content-encoding': encoding,
            authorization: `Bearer ${path.startsWith('/hooks/') ? HOOK_TOKEN : CLIENT_KEY}`,
          },
          body: compressed ? gzipSync(body) : body,
        }),
      );
    await fc.assert(fc.asyncProperty(request, sendAndCheck), { numRuns: 300 });
  });

  it('is still up, with no prototype polluted, after at least 10,000 generated requests', async () => {
    // Run alone (or before the properties above), it sends the generated /v1 requests itself;
    // after them, the gateway has already taken more than enough.
    const missing = GENERATED_AT_LEAST - client.sent;
    if (missing > 0) {
      await fc.assert(fc.asyncProperty(fc.oneof(chatPost, responsesPost, embeddingsPost), sendAndCheck), {
        numRuns: missing,
      });
    }
    const generated = client.sent;
    const health = await client.send({ method: 'GET', path: '/health', headers: {} });
    expect(health.status).toBe(200);
    expect(JSON.parse(health.text)).toEqual({ status: 'ok' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    expect(Object.getOwnPropertyNames(Object.prototype)).toEqual(prototypeNames.object);
    expect(Object.getOwnPropertyNames(Array.prototype)).toEqual(prototypeNames.array);
    console.log(`bad input: ${generated} generated requests sent to one gateway`);
    expect(generated).toBeGreaterThanOrEqual(GENERATED_AT_LEAST);
  });
});
