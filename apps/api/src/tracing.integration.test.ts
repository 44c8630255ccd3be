import { createLogger } from '@switchboard/logger';
import {
  answerText,
  type LocalServer,
  lastUserText,
  lineCollector,
  sendJson,
  startLocalServer,
  startOpenAIUpstream,
} from '@switchboard/testing';
import { startTracing } from '@switchboard/tracing';
import { closeWorkerDeps, createWorkerDeps, type RunningWorker, startWorker, type WorkerDeps } from '@switchboard/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startGateway, type TestGateway } from './test-support/start-gateway.js';

const HOOK_TOKEN = 'hook-token-0123456789';
const MODEL = 'mock/gpt-4o-mini';

interface ExportedSpan {
  service: string;
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  attributes: Record<string, unknown>;
}

/** OTLP/JSON as the exporter posts it: resourceSpans → scopeSpans → spans. */
interface OtlpJson {
  resourceSpans: {
    resource: { attributes: { key: string; value: { stringValue?: string } }[] };
    scopeSpans: {
      spans: {
        name: string;
        kind: number;
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        attributes?: { key: string; value: Record<string, unknown> }[];
      }[];
    }[];
  }[];
}

let collector: LocalServer;
let upstream: LocalServer;
let receiver: LocalServer;
let gateway: TestGateway;
let workerDeps: WorkerDeps;
let worker: RunningWorker;

/** Every span the stand-in collector received so far. */
function spans(): ExportedSpan[] {
  return collector.requests
    .filter((r) => r.method === 'POST' && r.url === '/v1/traces')
    .flatMap((r) =>
      (r.json as OtlpJson).resourceSpans.flatMap((resource) => {
        const service = resource.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
        return resource.scopeSpans.flatMap((scope) =>
          scope.spans.map((span) => ({
            service,
            name: span.name,
            kind: span.kind,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? '',
            attributes: Object.fromEntries((span.attributes ?? []).map((a) => [a.key, Object.values(a.value)[0]])),
          })),
        );
      }),
    );
}

/** The one span named `name` whose parent is `parent` (or, without a parent, the one matching `where`). */
function find(name: string, where: (span: ExportedSpan) => boolean): ExportedSpan {
  const found = spans().filter((span) => span.name === name && where(span));
  expect(found.map((s) => s.name)).toEqual([name]);
  return found[0]!;
}

beforeAll(async () => {
  // OTLP/HTTP collector stand-in: takes /v1/traces (JSON) and answers as a collector does.
  collector = await startLocalServer((_req, res) => sendJson(res, 200, {}));
  upstream = await startOpenAIUpstream((req, res) => answerText(req, res, `reply to: ${lastUserText(req)}`));
  receiver = await startLocalServer((_req, res) => sendJson(res, 200, { ok: true }));
  gateway = await startGateway({
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url },
    config: {
      defaultModel: MODEL,
      providers: { mock: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['gpt-4o-mini'] } },
      hooks: { support: { type: 'generic', token: HOOK_TOKEN, replyUrl: `${receiver.url}/inbox`, stream: false } },
      worker: { attempts: 2, backoffMs: 50, lockMs: 2000 },
    },
  });
  // The worker as main.ts builds it when the variable is set.
  const tracing = await startTracing({ endpoint: collector.url, serviceName: 'switchboard-worker' });
  const { stream } = lineCollector();
  workerDeps = createWorkerDeps(gateway.settings, { logger: createLogger({ level: 'warn', secrets: [], stream }), tracing });
  worker = startWorker(workerDeps);
});

afterAll(async () => {
  await worker?.close();
  if (workerDeps) await closeWorkerDeps(workerDeps);
  await gateway?.close();
  await Promise.all([collector?.close(), upstream?.close(), receiver?.close()]);
});

describe('traces, with OTEL_EXPORTER_OTLP_ENDPOINT set', () => {
  it('follows a hook message in one trace: API request → queue → worker → model call and delivery', async () => {
    const res = await fetch(`${gateway.url}/hooks/support`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${HOOK_TOKEN}` },
      body: JSON.stringify({ text: 'trace me', from: 'tracer' }),
    });
    expect(res.status).toBe(202);
    const { id } = await res.json();
    await eventually(() => expect(receiver.requests).toHaveLength(1));

    const deliver = await eventually(() => find('deliver reply', () => true), 200, 50);
    const job = find('process hook message', (s) => s.spanId === deliver.parentSpanId);
    expect(job).toMatchObject({ service: 'switchboard-worker', attributes: { 'messaging.message.id': id } });
    const queued = find('queue hook message', (s) => s.spanId === job.parentSpanId);
    expect(queued.service).toBe('switchboard-api');
    const request = find('POST /hooks/:name', (s) => s.spanId === queued.parentSpanId);
    expect(request).toMatchObject({
      service: 'switchboard-api',
      parentSpanId: '',
      attributes: { 'http.response.status_code': 202 },
    });
    const modelCall = find('model call', (s) => s.parentSpanId === job.spanId);
    expect(modelCall).toMatchObject({ service: 'switchboard-worker', attributes: { 'gen_ai.request.model': MODEL } });
    for (const span of [deliver, job, queued, modelCall]) expect(span.traceId).toBe(request.traceId);
  });

  it('makes each /v1 request a span with its model call as a child', async () => {
    const res = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'traced?' }] }),
    });
    expect(res.status).toBe(200);
    await res.json();
    const request = await eventually(() => find('POST /v1/chat/completions', () => true), 200, 50);
    expect(request).toMatchObject({
      service: 'switchboard-api',
      parentSpanId: '',
      attributes: { 'http.response.status_code': 200 },
    });
    const call = await eventually(() => find('model call', (s) => s.parentSpanId === request.spanId), 200, 50);
    expect(call).toMatchObject({ traceId: request.traceId, service: 'switchboard-api' });
  });
});
