import { defaultOpenAIHandler, type Handler, type LocalServer, sendJson, startLocalServer } from '@switchboard/testing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeploymentStatus } from '../services/deployment-status.js';
import { eventually, startGateway, type TestGateway } from '../test-support/start-gateway.js';
import { startTestWorker } from '../test-support/start-worker.js';

/**
 * One local upstream plays every deployment: the upstream model name says how it behaves, and
 * the requests it records say where the gateway sent each request.
 */
const behaviours: Record<string, Handler> = {
  limited: (_req, res) => sendJson(res, 429, { error: { message: 'rate limited' } }, { 'retry-after': '120' }),
  broken: (_req, res) => sendJson(res, 503, { error: { message: 'overloaded' } }),
  silent: () => {}, // never answers: the provider's timeoutMs runs out
  'soon-ok': (_req, res) => sendJson(res, 429, { error: { message: 'wait' } }, { 'retry-after': '30' }),
  'later-ok': (_req, res) => sendJson(res, 429, { error: { message: 'wait longer' } }, { 'retry-after': '90' }),
  'shared-bad': (_req, res) => sendJson(res, 429, { error: { message: 'rate limited' } }, { 'retry-after': '120' }),
  'worker-bad': (_req, res) => sendJson(res, 429, { error: { message: 'rate limited' } }, { 'retry-after': '120' }),
};
let failFlakyOnce = true;
const handler: Handler = (req, res, raw) => {
  const model = (req.json as { model?: string } | undefined)?.model ?? '';
  if (model === 'flaky' && failFlakyOnce) {
    failFlakyOnce = false;
    return sendJson(res, 429, { error: { message: 'one moment' } }, { 'retry-after': '1' });
  }
  return (behaviours[model] ?? defaultOpenAIHandler)(req, res, raw);
};

const HOOK_TOKEN = 'hook-token-0123456789';
let upstream: LocalServer;
let gateway: TestGateway;
let second: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  upstream = await startLocalServer(handler);
  const config = {
    defaultModel: 'up/ok-a',
    providers: {
      up: {
        type: 'openai',
        baseUrl: `${upstream.url}/v1`,
        models: ['ok-a', 'ok-b', 'limited', 'broken', 'soon-ok', 'later-ok', 'flaky', 'shared-bad', 'worker-bad'],
        maxRetries: 0,
      },
      slow: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['silent'], timeoutMs: 300, maxRetries: 0 },
      spare: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['spare'], maxRetries: 0 },
    },
    routes: {
      weighted: [{ model: 'up/ok-a', weight: 3 }, 'up/ok-b'],
      'with-429': ['up/ok-a', 'up/limited'],
      'with-503': ['up/ok-a', 'up/broken'],
      'with-timeout': ['up/ok-a', 'slow/silent'],
      'all-failing': ['up/soon-ok', 'up/later-ok'],
      recovering: ['up/ok-b', 'up/flaky'],
      shared: ['up/ok-b', 'up/shared-bad'],
      'for-hooks': ['up/ok-b', 'up/worker-bad'],
    },
    hooks: { support: { type: 'generic', token: HOOK_TOKEN, model: 'for-hooks' } },
    fallbacks: { 'all-failing': ['spare/spare'] },
    cooldown: { defaultMs: 45_000 },
  };
  gateway = await startGateway({ config });
  // A second API process on the same Redis prefix.
  second = await startGateway({ config, prefix: gateway.prefix });
  client = new OpenAI({ baseURL: gateway.baseURL, apiKey: 'not-needed', maxRetries: 0 });
});

afterAll(async () => {
  await second?.close();
  await gateway?.close();
  await upstream?.close();
});

const sentTo = (model: string) => upstream.requests.filter((r) => (r.json as { model?: string }).model === model).length;
const ask = (model: string, via = client) => via.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] });

async function deployment(id: string, via = gateway): Promise<DeploymentStatus> {
  const status = (await (await fetch(`${via.url}/status`)).json()) as { deployments: DeploymentStatus[] };
  return status.deployments.find((d) => d.id === id)!;
}

/** Sends requests to `route` until `model` has had one (a weighted draw sends it one sooner or later). */
async function untilTried(route: string, model: string, via = client): Promise<void> {
  for (let i = 0; i < 60 && sentTo(model) === 0; i++) expect((await ask(route, via)).choices[0]?.message.content).toBeTruthy();
  expect(sentTo(model)).toBe(1);
}

describe('routes', () => {
  it('spreads requests over the deployments by weight, and names the one that answered', async () => {
    const served: Record<string, number> = {};
    for (let i = 0; i < 80; i++) {
      const completion = await ask('weighted');
      served[completion.model] = (served[completion.model] ?? 0) + 1;
    }
    expect(Object.keys(served).sort()).toEqual(['up/ok-a', 'up/ok-b']);
    // weight 3 against 1: about 60 and 20; the bound leaves room for chance
    expect(served['up/ok-a']!).toBeGreaterThan(served['up/ok-b']! * 1.5);
  });

  it('is listed in /v1/models beside the deployments', async () => {
    const ids = (await client.models.list()).data.map((m) => m.id);
    expect(ids).toEqual(expect.arrayContaining(['up/ok-a', 'weighted', 'all-failing']));
  });

  it('leaves a deployment that answered 429 alone for its Retry-After, and answers every request from the others', async () => {
    await untilTried('with-429', 'limited');
    for (let i = 0; i < 20; i++) expect((await ask('with-429')).model).toBe('up/ok-a');
    expect(sentTo('limited')).toBe(1);
    const state = await deployment('up/limited');
    expect(state).toMatchObject({ state: 'cooling_down', routes: ['with-429'] });
    const left = Date.parse(state.cooldown_until!) - Date.now();
    expect(left).toBeGreaterThan(100_000);
    expect(left).toBeLessThanOrEqual(121_000);
    expect(state.last_error).toContain('429');
  });

  it('cools a deployment failing with 5xx down for the configured time', async () => {
    await untilTried('with-503', 'broken');
    for (let i = 0; i < 10; i++) await ask('with-503');
    expect(sentTo('broken')).toBe(1);
    const state = await deployment('up/broken');
    expect(state.state).toBe('cooling_down');
    expect(Date.parse(state.cooldown_until!) - Date.now()).toBeGreaterThan(40_000);
    expect(Date.parse(state.cooldown_until!) - Date.now()).toBeLessThanOrEqual(45_000);
  });

  it('cools a deployment that does not answer in time down, and answers from another', async () => {
    await untilTried('with-timeout', 'silent');
    for (let i = 0; i < 10; i++) expect((await ask('with-timeout')).model).toBe('up/ok-a');
    expect(sentTo('silent')).toBe(1);
    expect((await deployment('slow/silent')).last_error).toContain('504');
  });

  it('tries the deployment that recovers first when all are cooling down, then the fallbacks', async () => {
    const first = await ask('all-failing');
    expect(first.model).toBe('spare/spare');
    expect([sentTo('soon-ok'), sentTo('later-ok')]).toEqual([1, 1]);
    const second_ = await ask('all-failing');
    expect(second_.model).toBe('spare/spare');
    expect([sentTo('soon-ok'), sentTo('later-ok')]).toEqual([2, 1]);
  });

  it('sends requests to a deployment again once its cooldown is over, keeping its last error', async () => {
    await untilTried('recovering', 'flaky');
    await eventually(async () => {
      await ask('recovering');
      expect(sentTo('flaky')).toBeGreaterThan(1);
    });
    const state = await deployment('up/flaky');
    expect(state.state).toBe('ok');
    expect(state.last_error).toContain('429');
  });

  it('shares cooldowns between API processes through Redis', async () => {
    await untilTried('shared', 'shared-bad');
    const other = new OpenAI({ baseURL: second.baseURL, apiKey: 'not-needed', maxRetries: 0 });
    for (let i = 0; i < 20; i++) expect((await ask('shared', other)).model).toBe('up/ok-b');
    expect(sentTo('shared-bad')).toBe(1);
    expect((await deployment('up/shared-bad', second)).state).toBe('cooling_down');
  });

  it('shares cooldowns with the worker: hook messages are answered by the deployments the API did not cool down', async () => {
    await untilTried('for-hooks', 'worker-bad');
    const worker = startTestWorker(gateway.settings);
    try {
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) {
        const res = await fetch(`${gateway.url}/hooks/support`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${HOOK_TOKEN}` },
          body: JSON.stringify({ from: `user-${i}`, text: `question ${i}` }),
        });
        ids.push((await res.json()).id);
      }
      for (const id of ids) {
        await eventually(async () => {
          const res = await fetch(`${gateway.url}/hooks/support/jobs/${id}`, { headers: { 'x-hook-token': HOOK_TOKEN } });
          expect((await res.json()).status).toBe('completed');
        });
      }
      expect(sentTo('worker-bad')).toBe(1);
    } finally {
      await worker.close();
    }
  });
});
