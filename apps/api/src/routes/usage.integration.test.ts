import { estimatePromptTokens } from '@switchboard/state';
import {
  answerText,
  chunkBody,
  defaultOpenAIHandler,
  freePort,
  type LocalServer,
  openSse,
  sendJson,
  startOpenAIUpstream,
  writeSse,
} from '@switchboard/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startGateway, type TestGateway } from '../test-support/start-gateway.js';
import { startTestWorker, type TestWorker } from '../test-support/start-worker.js';

const ADMIN = 'admin-key-0123456789abcdef';
const HOOK_TOKEN = 'hook-token-0123456789';
const PRICE = { input: 10, output: 30 }; // per million tokens
/** The fake upstream reports 11 prompt and 7 completion tokens for every answer. */
const COST = (11 * PRICE.input + 7 * PRICE.output) / 1e6;
const RACE_QUESTION = [{ role: 'user', content: 'race' }];
const RACE_ESTIMATE = estimatePromptTokens(RACE_QUESTION) + 10; // max_tokens: 10

const keys = {
  teamA: { key: 'sk-usage-team-a-000', name: 'team-a' },
  unnamed: { key: 'sk-usage-unnamed-00' },
  streams: { key: 'sk-usage-streams-00', name: 'streams' },
  leaver: { key: 'sk-usage-leaver-000', name: 'leaver', tokensPerDay: 1000 },
  daily: { key: 'sk-usage-daily-0000', name: 'daily', tokensPerDay: 30 },
  crossing: { key: 'sk-usage-crossing-0', name: 'crossing', tokensPerDay: 20 },
  monthly: { key: 'sk-usage-monthly-00', name: 'monthly', costPerMonth: 0.0005 },
  // The budget object hooks take; the keys above use the old flat form, still read.
  budgeted: { key: 'sk-usage-budgeted-0', name: 'budgeted', budget: { tokensPerDay: 1000, costPerMonth: 0.0005 } },
  // Room for exactly five reservations of the race's estimate.
  race: { key: 'sk-usage-race-00000', name: 'race', tokensPerDay: 5 * RACE_ESTIMATE },
};

let upstream: LocalServer;
let gateway: TestGateway;
let worker: TestWorker;

beforeAll(async () => {
  upstream = await startOpenAIUpstream();
  gateway = await startGateway({
    config: {
      defaultModel: 'mock/gpt-4o-mini',
      providers: {
        mock: {
          type: 'openai',
          baseUrl: `${upstream.url}/v1`,
          models: ['gpt-4o-mini', 'free-model'],
          embeddingModels: ['embed'],
        },
      },
      pricing: { 'mock/gpt-4o-mini': PRICE, 'mock/embed': { input: 1, output: 0 } },
      apiKeys: Object.values(keys),
      adminKeys: [ADMIN],
      hooks: {
        support: { type: 'generic', token: HOOK_TOKEN },
        capped: { type: 'generic', token: HOOK_TOKEN, stream: false, budget: { tokensPerDay: 1 } },
      },
      worker: { attempts: 3, backoffMs: 50 },
    },
  });
  worker = startTestWorker(gateway.settings);
});

afterEach(() => upstream.handle(defaultOpenAIHandler));

afterAll(async () => {
  await worker?.close();
  await gateway?.close();
  await upstream?.close();
});

const ask = (apiKey: { key: string }, body: Record<string, unknown>, path = '/v1/chat/completions') =>
  fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey.key}` },
    body: JSON.stringify({ model: 'mock/gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }], ...body }),
  });

const toHook = (hook: string, text: string) =>
  fetch(`${gateway.url}/hooks/${hook}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${HOOK_TOKEN}` },
    body: JSON.stringify({ text, from: `${hook}-user` }),
  });

/** A streamed answer's text and the usage chunk it ended with (when asked for). */
async function streamed(res: Response) {
  expect(res.status).toBe(200);
  const frames = (await res.text())
    .split('\n\n')
    .map((f) => f.replace(/^data: /, ''))
    .filter((f) => f && f !== '[DONE]')
    .map((f) => JSON.parse(f));
  return {
    text: frames.map((f) => f.choices[0]?.delta?.content ?? '').join(''),
    usage: frames.find((f) => f.usage)?.usage,
  };
}

async function usage(query: string, admin = ADMIN) {
  const res = await fetch(`${gateway.url}/admin/usage?${query}`, { headers: { authorization: `Bearer ${admin}` } });
  return { status: res.status, body: await res.json() };
}

/** The rows of one group, once the fire-and-forget recording has landed. */
async function rowOf(groupBy: string, name: string, requests: number) {
  return eventually(async () => {
    const { body } = await usage(`group_by=${groupBy}`);
    const row = body.data.find((r: Record<string, unknown>) => r[groupBy] === name);
    if (row?.requests !== requests) throw new Error(`not yet: ${JSON.stringify(row)}`);
    return row;
  });
}

describe('usage and spend', () => {
  it('records requests, tokens and cost per API key name, priced from the table', async () => {
    for (let i = 0; i < 3; i++) expect((await ask(keys.teamA, {})).status).toBe(200);
    const row = await rowOf('key', 'team-a', 3);
    expect(row).toEqual({
      key: 'team-a',
      requests: 3,
      prompt_tokens: 33,
      completion_tokens: 21,
      cost: expect.closeTo(3 * COST, 12),
    });
  });

  it('names a key without a name by its short id, never by the key', async () => {
    expect((await ask(keys.unnamed, { model: 'mock/free-model' })).status).toBe(200);
    // Records of calls without a budget are written within a second.
    const body = await eventually(async () => {
      const { body } = await usage('group_by=key');
      expect(body.data.some((r: { key: string }) => r.key.startsWith('key-'))).toBe(true);
      return body;
    });
    const text = JSON.stringify(body);
    expect(text).not.toContain(keys.unnamed.key);
    const row = await rowOf('key', body.data.find((r: { key: string }) => r.key.startsWith('key-'))?.key ?? 'key-?', 1);
    // No price for this model: cost 0, and the row says so.
    expect(row).toMatchObject({ requests: 1, prompt_tokens: 11, completion_tokens: 7, cost: 0, priced: false });
  });

  it('counts streams: the upstream’s usage chunk, else the tokenizer’s count (what the client is told)', async () => {
    const first = await streamed(await ask(keys.streams, { stream: true }));
    expect(first.usage).toBeUndefined(); // the client did not ask for it; the upstream was asked all the same
    expect((upstream.requests.at(-1)!.json as { stream_options?: unknown }).stream_options).toEqual({ include_usage: true });
    await rowOf('key', 'streams', 1);

    upstream.handle((req, res) => answerText(req, res, 'counted by the tokenizer here')); // no usage in the stream
    const second = await streamed(await ask(keys.streams, { stream: true, stream_options: { include_usage: true } }));
    expect(second.text).toBe('counted by the tokenizer here');
    const row = await rowOf('key', 'streams', 2);
    expect(row.prompt_tokens).toBe(11 + second.usage.prompt_tokens);
    expect(row.completion_tokens).toBe(7 + second.usage.completion_tokens);
    expect(second.usage.completion_tokens).toBeGreaterThan(0);
    expect(row.cost).toBeCloseTo(COST + (second.usage.prompt_tokens * 10 + second.usage.completion_tokens * 30) / 1e6, 12);
  });

  it('counts a stream the client leaves half-way, with the tokenizer', async () => {
    upstream.handle((_req, res) => {
      openSse(res);
      writeSse(res, chunkBody('gpt-4o-mini', { role: 'assistant', content: 'a partial answer' }));
      res.on('close', () => res.end()); // the rest never comes: the client leaves first
    });
    const leaving = new AbortController();
    const res = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${keys.leaver.key}` },
      body: JSON.stringify({ model: 'mock/gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }], stream: true }),
      signal: leaving.signal,
    });
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('a partial answer');
    leaving.abort();
    const row = await rowOf('key', 'leaver', 1);
    expect(row.prompt_tokens).toBeGreaterThan(0);
    expect(row.completion_tokens).toBe(3); // "a partial answer"
  });

  it('groups by requested model and counts embeddings and /v1/responses too', async () => {
    const before = (await usage('group_by=model')).body.data.find((r: { model: string }) => r.model === 'mock/embed');
    const res = await ask(keys.teamA, { model: 'mock/embed', input: 'vectors please', messages: undefined }, '/v1/embeddings');
    expect(res.status).toBe(200);
    const row = await rowOf('model', 'mock/embed', (before?.requests ?? 0) + 1);
    expect(row.completion_tokens).toBe(0);
    const responses = await ask(keys.teamA, { input: 'hi', messages: undefined }, '/v1/responses');
    expect(responses.status).toBe(200);
    await rowOf('key', 'team-a', 5);
  });

  it('records the model calls of hook messages under the hook, through the real worker', async () => {
    const send = await toHook('support', 'hook question');
    expect(send.status).toBe(202);
    const row = await rowOf('hook', 'support', 1);
    expect(row).toEqual({
      hook: 'support',
      requests: 1,
      prompt_tokens: 11,
      completion_tokens: 7,
      cost: expect.closeTo(COST, 12),
    });
    // /v1 traffic has no hook: its rows are grouped under "-".
    expect((await usage('group_by=hook')).body.data.some((r: { hook: string }) => r.hook === '-')).toBe(true);
  });

  it('answers the contract’s shape with the default range, and 400 with param for bad values', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const { body } = await usage('');
    expect(body).toMatchObject({ object: 'list', to: today, group_by: 'key' });
    expect(Date.parse(body.to) - Date.parse(body.from)).toBe(6 * 86_400_000);
    for (const [query, param] of [
      ['from=2026-02-30', 'from'],
      ['to=yesterday', 'to'],
      ['group_by=user', 'group_by'],
      ['from=2026-01-10&to=2026-01-01', 'from'],
      ['from=2020-01-01&to=2026-01-01', 'from'],
    ]) {
      const bad = await usage(query!);
      expect(bad.status, query).toBe(400);
      expect(bad.body.error).toMatchObject({ type: 'invalid_request_error', param });
    }
  });

  it('is behind the admin keys: API keys do not open it', async () => {
    expect((await usage('', keys.teamA.key)).status).toBe(401);
    expect((await fetch(`${gateway.url}/admin/usage`)).status).toBe(401);
  });
});

describe('budgets', () => {
  const refusal = async (res: Response) => {
    expect(res.status).toBe(429);
    const { error } = await res.json();
    expect(error).toMatchObject({ type: 'insufficient_quota', code: 'insufficient_quota', param: null });
    return error.message as string;
  };

  it('refuses a key with 429 insufficient_quota once its tokensPerDay is reached', async () => {
    expect((await ask(keys.daily, {})).status).toBe(200); // 18 of 30
    expect((await ask(keys.daily, {})).status).toBe(200); // 36: this one crossed it
    const calls = upstream.requests.length;
    expect(await refusal(await ask(keys.daily, {}))).toMatch(/tokensPerDay 30 reached/);
    expect(await refusal(await ask(keys.daily, { stream: true }))).toMatch(/resets at/);
    expect(upstream.requests.length).toBe(calls); // refused before the upstream call
  });

  it('lets a stream that crosses the budget finish, and refuses the next request', async () => {
    expect((await streamed(await ask(keys.crossing, { stream: true }))).text).toBe('Upstream says: hello'); // 18 of 20
    const crossing = await streamed(await ask(keys.crossing, { stream: true }));
    expect(crossing.text).toBe('Upstream says: hello');
    await refusal(await ask(keys.crossing, { stream: true }));
  });

  it('refuses a key once its costPerMonth is spent', async () => {
    expect((await ask(keys.monthly, {})).status).toBe(200);
    expect((await ask(keys.monthly, {})).status).toBe(200); // 2 × 0.00032 crosses 0.0005
    expect(await refusal(await ask(keys.monthly, {}))).toMatch(/costPerMonth 0.0005 reached/);
  });

  it('refuses a key by its budget object, the form hooks take, as by the old flat keys', async () => {
    expect((await ask(keys.budgeted, {})).status).toBe(200);
    expect((await ask(keys.budgeted, {})).status).toBe(200); // 2 × 0.00032 crosses 0.0005; 36 of 1000 tokens
    const calls = upstream.requests.length;
    expect(await refusal(await ask(keys.budgeted, {}))).toMatch(/^This API key is over its budget.*costPerMonth 0.0005 reached/);
    expect(upstream.requests.length).toBe(calls);
  });

  it('admits exactly the requests whose reservations fit when 20 race at the edge of a budget', async () => {
    // The upstream holds every answer until the race is decided, so no settlement frees room early.
    let release!: () => void;
    const decided = new Promise<void>((resolve) => {
      release = resolve;
    });
    upstream.handle(async (req, res) => {
      await decided;
      sendJson(res, 200, {
        id: 'x',
        object: 'chat.completion',
        created: 1,
        model: 'gpt-4o-mini',
        choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
      });
      void req;
    });
    const calls = upstream.requests.length;
    let refused = 0;
    const pending = Array.from({ length: 20 }, () =>
      ask(keys.race, { messages: RACE_QUESTION, max_tokens: 10 }).then((res) => {
        if (res.status === 429) refused++;
        return res;
      }),
    );
    // Decided: every request is either refused or waiting at the upstream (none can settle yet).
    await eventually(async () => {
      if (refused + upstream.requests.length - calls < 20) throw new Error('the race is not decided yet');
    });
    release();
    const statuses = (await Promise.all(pending)).map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    expect(upstream.requests.length - calls).toBe(5);
    // Settled with the actual usage: 5 × 18 tokens spent, under the limit again, so the next is admitted.
    await rowOf('key', 'race', 5);
    expect((await ask(keys.race, { messages: RACE_QUESTION, max_tokens: 10 })).status).toBe(200);
  });

  it('fails a hook message over its budget for good with insufficient_quota, without retries', async () => {
    const send = async (text: string) => (await (await toHook('capped', text)).json()).id as string;
    const finished = (id: string) =>
      eventually(async () => {
        const res = await fetch(`${gateway.url}/hooks/capped/jobs/${id}`, { headers: { 'x-hook-token': HOOK_TOKEN } });
        const view = await res.json();
        if (view.status !== 'completed' && view.status !== 'failed') throw new Error(`still ${view.status}`);
        return view;
      });
    expect(await finished(await send('first'))).toMatchObject({ status: 'completed', reply: 'Upstream says: first' });
    const calls = upstream.requests.length;
    const refused = await finished(await send('second'));
    expect(refused).toMatchObject({ status: 'failed', attempts: 1 });
    expect(refused.error).toMatch(/insufficient_quota.*tokensPerDay 1 reached/);
    expect(upstream.requests.length).toBe(calls);
  });
});

describe('with usage.enabled false', () => {
  it('records no usage, and still enforces budgets', async () => {
    const quiet = await startGateway({
      config: {
        providers: { mock: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['gpt-4o-mini'] } },
        apiKeys: [{ key: keys.daily.key, name: 'daily', tokensPerDay: 20 }],
        adminKeys: [ADMIN],
        usage: { enabled: false },
      },
    });
    try {
      const askQuiet = () =>
        fetch(`${quiet.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${keys.daily.key}` },
          body: JSON.stringify({ model: 'mock/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
        });
      expect((await askQuiet()).status).toBe(200); // 18 of 20
      expect((await askQuiet()).status).toBe(200); // crosses it
      expect((await askQuiet()).status).toBe(429);
      const res = await fetch(`${quiet.url}/admin/usage`, { headers: { authorization: `Bearer ${ADMIN}` } });
      expect((await res.json()).data).toEqual([]);
    } finally {
      await quiet.close();
    }
  });
});

describe('with Redis away', () => {
  it('refuses a budgeted key with 503 (fails closed) and answers a key without one, its usage unrecorded', async () => {
    const away = await startGateway({
      env: { REDIS_URL: `redis://127.0.0.1:${await freePort()}` },
      config: {
        providers: { mock: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['gpt-4o-mini'] } },
        apiKeys: [keys.daily, keys.teamA],
      },
    });
    try {
      const askAway = (apiKey: { key: string }) =>
        fetch(`${away.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey.key}` },
          body: JSON.stringify({ model: 'mock/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
        });
      const refused = await askAway(keys.daily);
      expect(refused.status).toBe(503);
      expect((await refused.json()).error).toMatchObject({ code: 'budget_unavailable' });
      expect((await askAway(keys.teamA)).status).toBe(200);
      await eventually(() => expect(away.logs.some((l) => l.message === 'usage not recorded: Redis did not take it')).toBe(true));
      expect(away.logs.filter((l) => l.level === 'error')).toEqual([]);
    } finally {
      await away.close();
    }
  });
});
