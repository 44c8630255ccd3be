import { Metrics } from '@switchboard/metrics';
import { describe, expect, it } from 'vitest';
import { parseExposition } from '../test-support/prometheus-text.js';
import { countedStatus, v1Recorder } from './v1-metrics.js';

/** The model list as the gateway serves it: deployments with their provider, routes owned by switchboard. */
const MODELS = [
  { id: 'mock/gpt-4o-mini', owned_by: 'mock' },
  { id: 'claude/sonnet', owned_by: 'claude' },
  { id: 'fast', owned_by: 'switchboard' },
];

/** A fresh registry and its recorder; `scrape` reads what Prometheus would. */
function recorder() {
  const metrics = new Metrics('api');
  const record = v1Recorder(metrics, MODELS);
  const scrape = async () => parseExposition((await metrics.expose()).text);
  return { record, scrape };
}

const REQUESTS = 'switchboard_v1_requests_total';
const chat = '/v1/chat/completions';

describe('the /v1 request metrics', () => {
  it('count a request under its route, status, model and the model’s provider', async () => {
    const { record, scrape } = recorder();
    record({ route: chat, model: 'mock/gpt-4o-mini', status: 200, seconds: 0.2 });
    record({ route: chat, model: 'mock/gpt-4o-mini', status: 200, seconds: 0.3 });
    record({ route: chat, model: 'claude/sonnet', status: 429, seconds: 0.1 });
    const samples = (await scrape()).samples.filter((s) => s.name === REQUESTS);
    expect(samples).toEqual([
      { name: REQUESTS, labels: { route: chat, status: '200', model: 'mock/gpt-4o-mini', provider: 'mock' }, value: 2 },
      { name: REQUESTS, labels: { route: chat, status: '429', model: 'claude/sonnet', provider: 'claude' }, value: 1 },
    ]);
  });

  it('label a route name with provider switchboard, and anything not configured as unknown, never as typed', async () => {
    const { record, scrape } = recorder();
    record({ route: chat, model: 'fast', status: 200, seconds: 0.1 });
    record({ route: chat, model: 'gpt-4o-mini-typo', status: 404, seconds: 0.1 });
    record({ route: chat, model: 'attacker/"}\n{x', status: 404, seconds: 0.1 });
    record({ route: '/v1/embeddings', model: undefined, status: 400, seconds: 0.1 });
    const exposition = await scrape();
    expect(exposition.samples.filter((s) => s.name === REQUESTS).map((s) => s.labels)).toEqual([
      { route: chat, status: '200', model: 'fast', provider: 'switchboard' },
      { route: chat, status: '404', model: 'unknown', provider: 'unknown' },
      { route: '/v1/embeddings', status: '400', model: 'unknown', provider: 'unknown' },
    ]);
    expect(exposition.value(REQUESTS, { model: 'unknown', status: '404' })).toBe(2);
  });

  it('count a request no route matched under route "unmatched"', async () => {
    const { record, scrape } = recorder();
    record({ route: undefined, model: undefined, status: 404, seconds: 0.01 });
    expect((await scrape()).value(REQUESTS, { route: 'unmatched', status: '404', model: 'unknown' })).toBe(1);
  });

  it('observe the duration of every request, and the time to the first token of streams only', async () => {
    const { record, scrape } = recorder();
    record({ route: chat, model: 'mock/gpt-4o-mini', status: 200, seconds: 0.75 });
    record({ route: chat, model: 'mock/gpt-4o-mini', status: 200, seconds: 2, firstTokenSeconds: 0.5 });
    const exposition = await scrape();
    const labels = { route: chat, model: 'mock/gpt-4o-mini', provider: 'mock' };
    expect(exposition.value('switchboard_v1_request_duration_seconds_count', labels)).toBe(2);
    expect(exposition.value('switchboard_v1_request_duration_seconds_sum', labels)).toBe(2.75);
    expect(exposition.value('switchboard_v1_time_to_first_token_seconds_count', labels)).toBe(1);
    expect(exposition.value('switchboard_v1_time_to_first_token_seconds_sum', labels)).toBe(0.5);
    expect(exposition.value('switchboard_v1_time_to_first_token_seconds_bucket', { ...labels, le: '0.5' })).toBe(1);
    expect(exposition.value('switchboard_v1_time_to_first_token_seconds_bucket', { ...labels, le: '0.25' })).toBe(0);
  });
});

describe('the status a request is counted under', () => {
  it('is its own once the response was written in full', () => {
    expect(countedStatus(true, 201, false)).toBe(201);
    expect(countedStatus(true, 500, true)).toBe(500);
  });

  it('is 408 when the server cut a request that came too slowly, else 499 (the client hung up)', () => {
    expect(countedStatus(false, 200, true)).toBe(408);
    expect(countedStatus(false, 200, false)).toBe(499);
  });
});
