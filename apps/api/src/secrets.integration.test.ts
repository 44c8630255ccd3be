import {
  chunkBody,
  freePort,
  type LocalServer,
  openSse,
  sendJson,
  slackMessageEvent,
  slackSignedHeaders,
  startLocalServer,
  startOpenAIUpstream,
  TELEGRAM_SECRET_HEADER,
  telegramUpdate,
  writeSse,
} from '@switchboard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startGateway, type TestGateway } from './test-support/start-gateway.js';
import { startTestWorker, type TestWorker } from './test-support/start-worker.js';

/**
 * Secrets stay secret: with every kind configured and the log at debug, no log line of the API
 * or the worker and no response body holds a provider key, a client key, a hook token or a
 * signing secret, nor any credential a client sent — whatever the request and however the
 * upstream or the platform answers (echoing the key back included).
 */

const PROVIDER_KEY = 'sk-provider-SECRET-1111';
const CLIENT_KEY = 'client-key-SECRET-2222';
const LIMITED_CLIENT_KEY = 'client-key-SECRET-3333';
const HOOK_TOKEN = 'hook-token-SECRET-4444';
const SLACK_SIGNING_SECRET = 'slack-signing-SECRET-5555';
const SLACK_BOT_TOKEN = 'xoxb-slack-bot-SECRET-6666';
const TELEGRAM_BOT_TOKEN = '123456:telegram-bot-SECRET-7777';
const TELEGRAM_SECRET_TOKEN = 'telegram-secret-SECRET-8888';
const SECRETS = [
  PROVIDER_KEY,
  CLIENT_KEY,
  LIMITED_CLIENT_KEY,
  HOOK_TOKEN,
  SLACK_SIGNING_SECRET,
  SLACK_BOT_TOKEN,
  TELEGRAM_BOT_TOKEN,
  TELEGRAM_SECRET_TOKEN,
];

/** Wrong credentials a client may send; they must not be written anywhere either. */
const WRONG_CLIENT_KEY = 'client-key-WRONG-9999';
const WRONG_HOOK_TOKEN = 'hook-token-WRONG-0000';

const user = [{ role: 'user', content: 'hi' }];

let upstream: LocalServer;
let hookModel: LocalServer;
let platform: LocalServer;
let gateway: TestGateway;
let worker: TestWorker;
let closedPort: number;

/** Every response body received, and every credential header value sent. */
const bodies: string[] = [];
const sentCredentials = new Set<string>();

/** A platform API that refuses the bot token and echoes it back, as a careless one might. */
function echoingPlatform(): Promise<LocalServer> {
  return startLocalServer((req, res) => {
    if (req.url.startsWith('/slack/')) {
      return sendJson(res, 200, { ok: false, error: `invalid_auth: ${req.headers.authorization} is revoked` });
    }
    if (req.url.startsWith('/telegram/')) {
      return sendJson(res, 401, { ok: false, error_code: 401, description: `Unauthorized: ${req.url}` });
    }
    // The generic hook's reply receiver, failing with the hook's token in its answer.
    sendJson(res, 500, { error: `receiver misconfigured for ${HOOK_TOKEN}` });
  });
}

beforeAll(async () => {
  upstream = await startOpenAIUpstream();
  hookModel = await startOpenAIUpstream();
  platform = await echoingPlatform();
  closedPort = await freePort();
  gateway = await startGateway({
    config: {
      defaultModel: 'mock/gpt-4o-mini',
      providers: {
        mock: {
          type: 'openai',
          baseUrl: `${upstream.url}/v1`,
          apiKey: PROVIDER_KEY,
          models: ['gpt-4o-mini'],
          embeddingModels: ['embed'],
          maxRetries: 0,
        },
        answers: { type: 'openai', baseUrl: `${hookModel.url}/v1`, apiKey: PROVIDER_KEY, models: ['gpt-4o-mini'] },
        gone: {
          type: 'openai',
          baseUrl: `http://127.0.0.1:${closedPort}/v1`,
          apiKey: PROVIDER_KEY,
          models: ['m'],
          maxRetries: 0,
        },
      },
      apiKeys: [CLIENT_KEY, { key: LIMITED_CLIENT_KEY, requestsPerMinute: 100 }],
      hooks: {
        generic: { type: 'generic', token: HOOK_TOKEN, replyUrl: `${platform.url}/replies`, model: 'answers/gpt-4o-mini' },
        slack: {
          type: 'slack',
          signingSecret: SLACK_SIGNING_SECRET,
          botToken: SLACK_BOT_TOKEN,
          apiUrl: `${platform.url}/slack`,
          model: 'answers/gpt-4o-mini',
        },
        telegram: {
          type: 'telegram',
          botToken: TELEGRAM_BOT_TOKEN,
          secretToken: TELEGRAM_SECRET_TOKEN,
          apiUrl: `${platform.url}/telegram`,
          model: 'answers/gpt-4o-mini',
        },
      },
      worker: { attempts: 1, backoffMs: 10, lockMs: 2000 },
    },
    env: { LOG_LEVEL: 'debug' },
  });
  worker = startTestWorker(gateway.settings);
});

afterAll(async () => {
  await worker?.close();
  await gateway?.close();
  await Promise.all([upstream?.close(), hookModel?.close(), platform?.close()]);
});

/** Sends a request, keeps its body and credentials for the sweeps below, and checks the headers. */
async function call(method: string, path: string, options: { headers?: Record<string, string>; body?: string } = {}) {
  const headers = { ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}), ...options.headers };
  for (const [name, value] of Object.entries(headers)) {
    if (['authorization', 'x-hook-token', TELEGRAM_SECRET_HEADER].includes(name.toLowerCase())) sentCredentials.add(value);
  }
  const res = await fetch(`${gateway.url}${path}`, { method, headers, body: options.body });
  const text = await res.text();
  bodies.push(text);
  expect(res.headers.get('x-powered-by'), `${method} ${path}`).toBeNull();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
}

const chat = (body: unknown, key = CLIENT_KEY) =>
  call('POST', '/v1/chat/completions', { headers: { authorization: `Bearer ${key}` }, body: JSON.stringify(body) });

/** The secrets (and sent credentials) that `text` holds. */
function leaked(text: string): string[] {
  return [...SECRETS, ...sentCredentials].filter((secret) => text.includes(secret));
}

/** Parts of the provider key that are still recognisable: every run of ten of its characters. */
function keyFragments(text: string): string[] {
  const fragments = Array.from({ length: PROVIDER_KEY.length - 9 }, (_, i) => PROVIDER_KEY.slice(i, i + 10));
  return fragments.filter((fragment) => text.includes(fragment));
}

describe('secrets', () => {
  it('serves /v1 with the right key, streaming or not, without showing a secret', async () => {
    const plain = await chat({ model: 'mock/gpt-4o-mini', messages: user });
    expect(plain.status).toBe(200);
    expect(plain.json().choices[0].message.content).toBe('Upstream says: hi');
    const limited = await chat({ model: 'mock/gpt-4o-mini', messages: user }, LIMITED_CLIENT_KEY);
    expect(limited.status).toBe(200);
    const streamed = await chat({ model: 'mock/gpt-4o-mini', messages: user, stream: true });
    expect(streamed.status).toBe(200);
    expect(streamed.text).toContain('data: [DONE]');
    const models = await call('GET', '/v1/models', { headers: { authorization: `Bearer ${CLIENT_KEY}` } });
    expect(models.status).toBe(200);
    for (const res of [plain, limited, streamed, models]) expect(leaked(res.text)).toEqual([]);
    // The upstream got the provider key, and never the client's.
    expect(upstream.requests.map((r) => r.headers.authorization)).toEqual([
      `Bearer ${PROVIDER_KEY}`,
      `Bearer ${PROVIDER_KEY}`,
      `Bearer ${PROVIDER_KEY}`,
    ]);
  });

  it('answers 401 invalid_api_key for a wrong key and for none, repeating neither', async () => {
    const attempts: (Record<string, string> | undefined)[] = [
      { authorization: `Bearer ${WRONG_CLIENT_KEY}` },
      { authorization: `Bearer ${CLIENT_KEY}x` },
      { authorization: `Bearer ${PROVIDER_KEY}` },
      { authorization: `Basic ${Buffer.from(`user:${CLIENT_KEY}`).toString('base64')}` },
      { authorization: CLIENT_KEY },
      undefined,
    ];
    for (const headers of attempts) {
      for (const path of ['/v1/chat/completions', '/v1/models', '/status']) {
        const res = path.endsWith('completions')
          ? await call('POST', path, { headers, body: JSON.stringify({ model: 'mock/gpt-4o-mini', messages: user }) })
          : await call('GET', path, { headers });
        expect(res.status, `${path} ${JSON.stringify(headers)}`).toBe(401);
        expect(res.json().error.code).toBe('invalid_api_key');
        expect(leaked(res.text)).toEqual([]);
      }
    }
  });

  it('keeps the provider key out of an upstream 401 that echoes it', async () => {
    upstream.handle((req, res) =>
      sendJson(res, 401, {
        error: { message: `Incorrect API key provided: ${req.headers.authorization}`, type: 'invalid_request_error' },
      }),
    );
    const res = await chat({ model: 'mock/gpt-4o-mini', messages: user });
    expect(res.status).toBe(502);
    expect(res.json().error.code).toBe('upstream_auth_failed');
    expect(leaked(res.text)).toEqual([]);
  });

  it('keeps the provider key out of an upstream 400, 429 and 500 that echo it', async () => {
    for (const status of [400, 429, 500]) {
      upstream.handle((req, res) =>
        sendJson(res, status, { error: { message: `bad request for key ${req.headers.authorization?.slice(7)}`, type: 'x' } }),
      );
      const res = await chat({ model: 'mock/gpt-4o-mini', messages: user });
      expect(res.status).toBe(status === 500 ? 502 : status);
      expect(res.json().error.message).toContain('bad request for key');
      expect(leaked(res.text)).toEqual([]);
    }
    upstream.handle((req, res) => {
      res.writeHead(400, { 'content-type': 'text/plain' }).end(`no JSON here, key=${req.headers.authorization}`);
    });
    const plain = await chat({ model: 'mock/gpt-4o-mini', messages: user });
    expect(plain.status).toBe(400);
    expect(leaked(plain.text)).toEqual([]);
  });

  it('keeps the provider key out of /v1/responses and /v1/embeddings answers to an upstream error echoing it', async () => {
    upstream.handle((req, res) =>
      sendJson(res, 400, { error: { message: `bad request for key ${req.headers.authorization?.slice(7)}`, type: 'x' } }),
    );
    const post = (path: string, body: unknown) =>
      call('POST', path, { headers: { authorization: `Bearer ${CLIENT_KEY}` }, body: JSON.stringify(body) });
    const answers = [
      await post('/v1/responses', { model: 'mock/gpt-4o-mini', input: 'hi' }),
      await post('/v1/responses', { model: 'mock/gpt-4o-mini', input: 'hi', stream: true }),
      await post('/v1/embeddings', { model: 'mock/embed', input: 'hi' }),
    ];
    for (const res of answers) {
      expect(res.status).toBe(400);
      expect(res.json().error.message).toContain('bad request for key');
      expect(leaked(res.text)).toEqual([]);
    }
  });

  it('describes a model by id, by default and by bare name, and never the provider behind it', async () => {
    for (const id of ['mock/gpt-4o-mini', 'default', 'm']) {
      const res = await call('GET', `/v1/models/${id}`, { headers: { authorization: `Bearer ${CLIENT_KEY}` } });
      expect(res.status).toBe(200);
      expect(Object.keys(res.json()).sort()).toEqual(['created', 'id', 'object', 'owned_by']);
      expect(leaked(res.text)).toEqual([]);
    }
  });

  it('shows no part of the provider key when a long upstream message echoing it is cut short', async () => {
    // The key straddles the 500 characters of an upstream message that are passed on.
    upstream.handle((_req, res) =>
      sendJson(res, 400, { error: { message: `${'x'.repeat(490)}${PROVIDER_KEY} is not valid`, type: 'invalid_request_error' } }),
    );
    const res = await chat({ model: 'mock/gpt-4o-mini', messages: user });
    expect(res.status).toBe(400);
    expect(keyFragments(res.text)).toEqual([]);
  });

  it('keeps the provider key out of a stream that fails mid-way with an error echoing it', async () => {
    upstream.handle((req, res) => {
      openSse(res);
      writeSse(res, chunkBody('gpt-4o-mini', { role: 'assistant', content: 'Hel' }));
      writeSse(res, { error: { message: `key ${req.headers.authorization} was revoked`, type: 'invalid_request_error' } });
      res.end();
    });
    const res = await chat({ model: 'mock/gpt-4o-mini', messages: user, stream: true });
    expect(res.status).toBe(200);
    expect(res.text).toContain('"error"');
    expect(leaked(res.text)).toEqual([]);
  });

  it('keeps the provider key out of the answer when the upstream cannot be reached', async () => {
    const res = await chat({ model: 'gone/m', messages: user });
    expect(res.status).toBe(502);
    expect(res.json().error.code).toBe('upstream_unreachable');
    expect(leaked(res.text)).toEqual([]);
  });

  it('answers 400 for bad JSON without showing a secret', async () => {
    const res = await call('POST', '/v1/chat/completions', {
      headers: { authorization: `Bearer ${CLIENT_KEY}` },
      body: `{"model":"mock/gpt-4o-mini","messages":[{"role":"user","content":"${CLIENT_KEY}"`,
    });
    expect(res.status).toBe(400);
    expect(res.json().error.code).toBe('invalid_json');
    expect(leaked(res.text)).toEqual([]);
  });

  it('accepts hook requests with good credentials and refuses bad ones, showing no secret', async () => {
    const generic = JSON.stringify({ from: 'ada', text: 'hello' });
    const accepted = [
      await call('POST', '/hooks/generic', { headers: { authorization: `Bearer ${HOOK_TOKEN}` }, body: generic }),
      await call('POST', '/hooks/generic', {
        headers: { 'x-hook-token': HOOK_TOKEN },
        body: JSON.stringify({ from: 'bob', text: 'hi' }),
      }),
    ];
    for (const res of accepted) expect(res.status).toBe(202);
    const refused = [
      await call('POST', '/hooks/generic', { headers: { authorization: `Bearer ${WRONG_HOOK_TOKEN}` }, body: generic }),
      await call('POST', '/hooks/generic', { headers: { 'x-hook-token': `${HOOK_TOKEN}x` }, body: generic }),
      await call('POST', '/hooks/generic', { body: generic }),
      await call('GET', `/hooks/generic/jobs/${accepted[0]!.json().id}`, {
        headers: { authorization: `Bearer ${WRONG_HOOK_TOKEN}` },
      }),
    ];
    for (const res of refused) expect(res.status).toBe(401);

    const slackEvent = JSON.stringify(slackMessageEvent({ text: 'hello slack' }, { event_id: `Ev${Date.now()}` }));
    const slackOk = await call('POST', '/hooks/slack', {
      headers: slackSignedHeaders(SLACK_SIGNING_SECRET, slackEvent, Date.now()),
      body: slackEvent,
    });
    expect(slackOk.status).toBe(200);
    const slackForged = await call('POST', '/hooks/slack', {
      headers: slackSignedHeaders(`${SLACK_SIGNING_SECRET}-guess`, slackEvent, Date.now()),
      body: slackEvent,
    });
    expect(slackForged.status).toBe(401);

    const update = JSON.stringify(telegramUpdate({ text: 'hello telegram' }, { update_id: Date.now() % 1_000_000_000 }));
    const telegramOk = await call('POST', '/hooks/telegram', {
      headers: { [TELEGRAM_SECRET_HEADER]: TELEGRAM_SECRET_TOKEN },
      body: update,
    });
    expect(telegramOk.status).toBe(200);
    const telegramWrong = await call('POST', '/hooks/telegram', {
      headers: { [TELEGRAM_SECRET_HEADER]: `${TELEGRAM_SECRET_TOKEN}-guess` },
      body: update,
    });
    expect(telegramWrong.status).toBe(401);

    for (const res of [...accepted, ...refused, slackOk, slackForged, telegramOk, telegramWrong])
      expect(leaked(res.text)).toEqual([]);
  });

  it('answers 400 for bad JSON on each hook, with good credentials, showing no secret', async () => {
    const broken = `{"from":"ada","text":"${HOOK_TOKEN}`;
    const answers = [
      await call('POST', '/hooks/generic', { headers: { authorization: `Bearer ${HOOK_TOKEN}` }, body: broken }),
      await call('POST', '/hooks/slack', { headers: slackSignedHeaders(SLACK_SIGNING_SECRET, broken, Date.now()), body: broken }),
      await call('POST', '/hooks/telegram', { headers: { [TELEGRAM_SECRET_HEADER]: TELEGRAM_SECRET_TOKEN }, body: broken }),
    ];
    for (const res of answers) {
      expect(res.status).toBe(400);
      expect(res.json().error.code).toBe('invalid_json');
      expect(leaked(res.text)).toEqual([]);
    }
  });

  it('keeps the bot tokens out of failed deliveries, the job record and /status', async () => {
    // The worker answers the three accepted messages; every platform refuses and echoes the token.
    await eventually(
      () => expect(worker.logs.filter((line) => line.includes('job attempt failed')).length).toBeGreaterThanOrEqual(4),
      250,
      40,
    );
    const jobs = await call('POST', '/hooks/generic', {
      headers: { authorization: `Bearer ${HOOK_TOKEN}` },
      body: JSON.stringify({ from: 'cy', text: 'and you?' }),
    });
    const failed = await eventually(
      async () => {
        const job = await call('GET', `/hooks/generic/jobs/${jobs.json().id}`, { headers: { 'x-hook-token': HOOK_TOKEN } });
        expect(job.json().status).toBe('failed');
        return job;
      },
      250,
      40,
    );
    expect(failed.json().error).toContain('failed with 500');
    const called = new Set(platform.requests.map((r) => r.url.split('/')[1]));
    expect([...called].sort()).toEqual(['replies', 'slack', 'telegram']);
    const status = await call('GET', '/status', { headers: { authorization: `Bearer ${CLIENT_KEY}` } });
    expect(status.status).toBe(200);
    const channels = status.json().channels as { name: string; last_error: string | null }[];
    expect(
      channels
        .filter((c) => c.last_error)
        .map((c) => c.name)
        .sort(),
    ).toEqual(['generic', 'slack', 'telegram']);
    for (const res of [failed, status]) expect(leaked(res.text)).toEqual([]);
  });

  it('wrote request lines at debug level, and no secret or sent credential on any line of any level', () => {
    expect(gateway.settings.logLevel).toBe('debug');
    expect(gateway.logs.filter((line) => line.message === 'request').length).toBeGreaterThanOrEqual(40);
    // The failed stream was logged as a warning, with the upstream's message (and so the key) in it.
    expect(gateway.logs.map((line) => line.level)).toContain('warn');
    expect(worker.logs.some((line) => line.includes('job attempt failed'))).toBe(true);
    const lines = [...gateway.rawLogs, ...worker.logs];
    expect(lines.filter((line) => leaked(line).length > 0)).toEqual([]);
    expect(lines.filter((line) => keyFragments(line).length > 0)).toEqual([]);
  });

  it('showed no secret or sent credential in any response body', () => {
    expect(bodies.length).toBeGreaterThanOrEqual(40);
    expect(sentCredentials.size).toBeGreaterThanOrEqual(10);
    expect(bodies.filter((body) => leaked(body).length > 0)).toEqual([]);
  });
});
