import type { ServerResponse } from 'node:http';
import {
  answerText,
  type LocalServer,
  lastUserText,
  type RecordedRequest,
  sendJson,
  startLocalServer,
  startOpenAIUpstream,
} from '@switchboard/testing';
import type { MetricsServer } from '@switchboard/worker';
import { startMetricsServer } from '@switchboard/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Exposition, parseExposition } from './test-support/prometheus-text.js';
import { eventually, startGateway, type TestGateway } from './test-support/start-gateway.js';
import { startTestWorker, type TestWorker } from './test-support/start-worker.js';

const API_KEY = 'sk-metrics-test-0123';
const ADMIN_KEY = 'admin-metrics-test-0123456789';
const HOOK_TOKEN = 'hook-token-0123456789';
const MODEL = 'mock/gpt-4o-mini';

let upstream: LocalServer;
let receiver: LocalServer;
let gateway: TestGateway;
let worker: TestWorker;
let workerMetrics: MetricsServer;

/** The receiver of generic replies: 429 once for "slow down", 400 for "refuse", else 200. */
let slowedDown = false;
function platform(req: RecordedRequest, res: ServerResponse) {
  const text = String((req.json as { text?: unknown }).text);
  if (text.includes('slow down') && !slowedDown) {
    slowedDown = true;
    return sendJson(res, 429, { error: 'too many requests' });
  }
  if (text.includes('refuse')) return sendJson(res, 400, { error: 'we do not take this one' });
  sendJson(res, 200, { ok: true });
}

/** The model: `gpt-4o` (served by the provider `flaky`) is always overloaded; the others answer. */
function model(req: RecordedRequest, res: ServerResponse) {
  if ((req.json as { model?: unknown }).model === 'gpt-4o')
    return sendJson(res, 503, { error: { message: 'overloaded', type: 'server_error' } });
  answerText(req, res, `reply to: ${lastUserText(req)}`);
}

beforeAll(async () => {
  upstream = await startOpenAIUpstream(model);
  receiver = await startLocalServer(platform);
  gateway = await startGateway({
    config: {
      defaultModel: MODEL,
      providers: {
        mock: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['gpt-4o-mini'] },
        flaky: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['gpt-4o'], maxRetries: 0 },
      },
      fallbacks: { 'flaky/gpt-4o': [MODEL] },
      apiKeys: [API_KEY],
      adminKeys: [ADMIN_KEY],
      hooks: { support: { type: 'generic', token: HOOK_TOKEN, replyUrl: `${receiver.url}/inbox`, stream: false } },
      worker: { attempts: 3, backoffMs: 50, lockMs: 2000 },
    },
  });
  worker = startTestWorker(gateway.settings);
  workerMetrics = await startMetricsServer(worker.deps.metrics!, {
    port: 0,
    host: '127.0.0.1',
    adminKeys: [ADMIN_KEY],
    apiKeysSet: true,
    logger: worker.deps.logger,
  });
});

afterAll(async () => {
  await workerMetrics?.close();
  await worker?.close();
  await gateway?.close();
  await upstream?.close();
  await receiver?.close();
});

async function scrape(url = `${gateway.url}/metrics`): Promise<Exposition> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(await res.text());
}
const scrapeWorker = () => scrape(workerMetrics.url);

function chat(body: Record<string, unknown>, path = '/v1/chat/completions') {
  return fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${API_KEY}` },
    body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hello' }], ...body }),
  });
}

function sendHook(text: string, from: string) {
  return fetch(`${gateway.url}/hooks/support`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${HOOK_TOKEN}` },
    body: JSON.stringify({ text, from }),
  });
}

describe('GET /metrics access', () => {
  it('answers 401 without the admin key, with a wrong one and with an API key', async () => {
    for (const headers of [
      {},
      { authorization: 'Bearer not-the-admin-key-000' },
      { authorization: `Bearer ${API_KEY}` },
    ] as Record<string, string>[]) {
      for (const url of [`${gateway.url}/metrics`, workerMetrics.url]) {
        const res = await fetch(url, { headers });
        expect(res.status).toBe(401);
        expect((await res.json()).error).toMatchObject({ type: 'authentication_error', code: 'invalid_admin_key' });
      }
    }
  });

  it('answers 403 when API keys are set but no admin key, and 404 when metrics are off', async () => {
    const noAdmin = await startGateway({ config: { apiKeys: [API_KEY] } });
    const off = await startGateway({ config: { metrics: { enabled: false } } });
    try {
      const refused = await fetch(`${noAdmin.url}/metrics`, { headers: { authorization: `Bearer ${API_KEY}` } });
      expect(refused.status).toBe(403);
      expect((await refused.json()).error.code).toBe('admin_keys_not_configured');
      const none = await fetch(`${off.url}/metrics`);
      expect(none.status).toBe(404);
      expect((await none.json()).error.code).toBe('metrics_disabled');
    } finally {
      await noAdmin.close();
      await off.close();
    }
  });
});

describe('API metrics after real traffic', () => {
  it('counts a /v1 request by route, status, model and provider, with its latency and tokens', async () => {
    const labels = { route: '/v1/chat/completions', model: MODEL, provider: 'mock' };
    const before = await scrape();
    const res = await chat({});
    expect(res.status).toBe(200);
    const { usage } = await res.json();
    const after = await scrape();
    const delta = (name: string, l: Record<string, string>) => after.value(name, l) - before.value(name, l);
    expect(delta('switchboard_v1_requests_total', { ...labels, status: '200' })).toBe(1);
    expect(delta('switchboard_v1_request_duration_seconds_count', labels)).toBe(1);
    expect(delta('switchboard_model_tokens_total', { model: MODEL, provider: 'mock', direction: 'in' })).toBe(
      usage.prompt_tokens,
    );
    expect(delta('switchboard_model_tokens_total', { model: MODEL, provider: 'mock', direction: 'out' })).toBe(
      usage.completion_tokens,
    );
  });

  it('shows a /v1 request as a series with exactly its labels, its duration in one bucket and every one above', async () => {
    const labels = { route: '/v1/chat/completions', model: MODEL, provider: 'mock' };
    const before = await scrape();
    expect((await chat({})).status).toBe(200);
    const after = await scrape();
    const requests = after.samples.filter((s) => s.name === 'switchboard_v1_requests_total' && s.labels.model === MODEL);
    expect(requests.map((s) => s.labels)).toContainEqual({ ...labels, status: '200' });
    for (const sample of requests) expect(Object.keys(sample.labels).sort()).toEqual(['model', 'provider', 'route', 'status']);
    // Each bucket's growth: 0 below the request's duration, 1 from its bucket up to +Inf (cumulative).
    const bucket = 'switchboard_v1_request_duration_seconds_bucket';
    const growth = after.samples
      .filter((s) => s.name === bucket && s.labels.model === MODEL && s.labels.route === labels.route)
      .map((s) => s.value - before.value(bucket, s.labels));
    expect(growth.at(-1)).toBe(1);
    expect(growth).toEqual([...growth].sort((a, b) => a - b));
    expect(new Set(growth)).toEqual(new Set(growth[0] === 0 ? [0, 1] : [1]));
    expect(after.value('switchboard_v1_request_duration_seconds_count', labels)).toBe(
      after.value(bucket, { ...labels, le: '+Inf' }),
    );
  });

  it('counts a /v1 request spelled in capitals, which the router serves, under its route', async () => {
    const labels = { route: '/v1/chat/completions', model: MODEL, provider: 'mock', status: '200' };
    const before = await scrape();
    expect((await chat({}, '/V1/chat/completions')).status).toBe(200);
    const after = await scrape();
    expect(after.value('switchboard_v1_requests_total', labels) - before.value('switchboard_v1_requests_total', labels)).toBe(1);
  });

  it('measures the time to the first token of a stream, and labels a model nobody serves "unknown"', async () => {
    const before = await scrape();
    const streamed = await chat({ stream: true });
    expect(streamed.status).toBe(200);
    await streamed.text();
    const missing = await chat({ model: 'nobody/serves-this' });
    expect(missing.status).toBe(404);
    await missing.text();
    const after = await eventually(async () => {
      const now = await scrape();
      expect(now.value('switchboard_v1_requests_total') - before.value('switchboard_v1_requests_total')).toBe(2);
      return now;
    });
    const labels = { route: '/v1/chat/completions', model: MODEL, provider: 'mock' };
    expect(
      after.value('switchboard_v1_time_to_first_token_seconds_count', labels) -
        before.value('switchboard_v1_time_to_first_token_seconds_count', labels),
    ).toBe(1);
    const unknown = { route: '/v1/chat/completions', status: '404', model: 'unknown', provider: 'unknown' };
    expect(after.value('switchboard_v1_requests_total', unknown) - before.value('switchboard_v1_requests_total', unknown)).toBe(
      1,
    );
    expect(after.samples.some((s) => s.labels.model === 'nobody/serves-this')).toBe(false);
  });

  it('counts the retry that cured an upstream 503', async () => {
    let failed = false;
    upstream.handle((req, res) => {
      if (!failed) {
        failed = true;
        return sendJson(res, 503, { error: { message: 'busy', type: 'server_error' } });
      }
      answerText(req, res, 'fine now');
    });
    try {
      const before = await scrape();
      expect((await chat({})).status).toBe(200);
      const after = await scrape();
      const retries = (e: Exposition) => e.value('switchboard_upstream_retries_total', { provider: 'mock' });
      expect(retries(after) - retries(before)).toBe(1);
    } finally {
      upstream.handle(model);
    }
  });

  it('counts a deployment that failed and the fallback that answered instead', async () => {
    const before = await scrape();
    const res = await chat({ model: 'flaky/gpt-4o' });
    expect(res.status).toBe(200);
    expect((await res.json()).model).toBe(MODEL);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => after.value(name, labels) - before.value(name, labels);
    expect(delta('switchboard_upstream_errors_total', { model: 'flaky/gpt-4o', provider: 'flaky' })).toBe(1);
    expect(delta('switchboard_fallbacks_total', { model: 'flaky/gpt-4o', fallback: MODEL })).toBe(1);
    // The request is counted under the deployment that answered it.
    const answered = { route: '/v1/chat/completions', status: '200', model: MODEL, provider: 'mock' };
    expect(delta('switchboard_v1_requests_total', answered)).toBe(1);
  });
});

describe('hook metrics after real traffic', () => {
  it('counts a hook message received and queued (API), completed and delivered (worker)', async () => {
    const [apiBefore, workerBefore] = await Promise.all([scrape(), scrapeWorker()]);
    expect((await sendHook('hello there', 'metrics-ok')).status).toBe(202);
    await eventually(() =>
      expect(receiver.requests.filter((r) => (r.json as { to?: string }).to === 'metrics-ok')).toHaveLength(1),
    );
    const workerAfter = await eventually(async () => {
      const now = await scrapeWorker();
      const done = (e: Exposition) => e.value('switchboard_hook_messages_completed_total', { hook: 'support' });
      expect(done(now) - done(workerBefore)).toBe(1);
      return now;
    });
    const apiAfter = await scrape();
    for (const name of ['switchboard_hook_messages_received_total', 'switchboard_hook_messages_queued_total'])
      expect(apiAfter.value(name, { hook: 'support' }) - apiBefore.value(name, { hook: 'support' })).toBe(1);
    const delta = (name: string, labels: Record<string, string>) =>
      workerAfter.value(name, labels) - workerBefore.value(name, labels);
    expect(delta('switchboard_delivery_attempts_total', { platform: 'generic' })).toBe(1);
    expect(delta('switchboard_job_duration_seconds_count', { hook: 'support', outcome: 'completed' })).toBe(1);
    expect(delta('switchboard_model_tokens_total', { model: MODEL, direction: 'out' })).toBeGreaterThan(0);
  });

  it('counts a platform 429 and its retry, and a delivery refused for good as a failed message', async () => {
    const before = await scrapeWorker();
    await sendHook('please slow down', 'metrics-429');
    await sendHook('I refuse', 'metrics-400');
    const after = await eventually(async () => {
      const now = await scrapeWorker();
      const delta = (name: string, labels: Record<string, string>) => now.value(name, labels) - before.value(name, labels);
      expect(delta('switchboard_hook_messages_failed_total', { hook: 'support' })).toBe(1);
      expect(delta('switchboard_hook_messages_completed_total', { hook: 'support' })).toBe(1);
      return now;
    });
    const delta = (name: string, labels: Record<string, string>) => after.value(name, labels) - before.value(name, labels);
    expect(delta('switchboard_delivery_rate_limited_total', { platform: 'generic' })).toBe(1);
    // The 429, its retry, and the refused one.
    expect(delta('switchboard_delivery_attempts_total', { platform: 'generic' })).toBe(3);
    expect(delta('switchboard_job_duration_seconds_count', { hook: 'support', outcome: 'retry' })).toBe(1);
    expect(delta('switchboard_job_duration_seconds_count', { hook: 'support', outcome: 'failed' })).toBe(1);
  });

  it('reads the queue, channel, session and worker gauges from Redis at scrape time', async () => {
    const metrics = await eventually(async () => {
      const now = await scrape();
      expect(now.value('switchboard_worker_processes')).toBe(1);
      // Sessions are written once a second (state/active-sessions.ts).
      expect(now.value('switchboard_active_sessions')).toBeGreaterThanOrEqual(1);
      return now;
    });
    for (const state of ['waiting', 'active', 'delayed', 'failed'])
      expect(metrics.samples.some((s) => s.name === 'switchboard_queue_jobs' && s.labels.state === state)).toBe(true);
    // The message refused for good stays in BullMQ's failed set.
    expect(metrics.value('switchboard_queue_jobs', { state: 'failed' })).toBeGreaterThanOrEqual(1);
    expect(metrics.samples.filter((s) => s.name === 'switchboard_channel_connected').map((s) => s.labels.hook)).toEqual([
      'support',
    ]);
  });
});

describe('metric names', () => {
  it('follow Prometheus conventions: switchboard_ prefix, _total counters, base units, help and type', async () => {
    const [api, workerSide] = await Promise.all([scrape(), scrapeWorker()]);
    for (const exposition of [api, workerSide]) {
      const ours = [...exposition.types].filter(([name]) => name.startsWith('switchboard_'));
      expect(ours.length).toBeGreaterThan(10);
      for (const [name, type] of ours) {
        expect(name).toMatch(/^switchboard_[a-z0-9_]+$/);
        if (type === 'counter') expect(name).toMatch(/_total$/);
        else expect(name).not.toMatch(/_total$/);
        if (type === 'histogram') expect(name).toMatch(/_seconds$/);
        expect(name).not.toMatch(/_(ms|milliseconds|kb|mb)(_|$)/);
      }
    }
    // Each process serves its own side.
    expect(api.types.has('switchboard_v1_requests_total')).toBe(true);
    expect(api.types.has('switchboard_queue_jobs')).toBe(true);
    expect(workerSide.types.has('switchboard_job_duration_seconds')).toBe(true);
    expect(workerSide.types.has('switchboard_queue_jobs')).toBe(false);
  });
});
