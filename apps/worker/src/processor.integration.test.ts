import { once } from 'node:events';
import { acceptMessage, readJobView } from '@switchboard/hub';
import { conversationKey, type InboundMessage } from '@switchboard/protocol';
import {
  completionBody,
  eventually,
  type LocalServer,
  lastUserText,
  sendJson,
  startLocalServer,
  startOpenAIUpstream,
} from '@switchboard/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorkerFixture, type WorkerFixture } from './test-support/worker-fixture.js';

/**
 * The worker's pipeline against a real Redis and BullMQ, a local OpenAI-compatible upstream and
 * a local receiver standing in for a generic hook's replyUrl. Messages are queued with the hub
 * as the API queues them.
 */
let upstream: LocalServer;
let receiver: LocalServer;
let fixture: WorkerFixture | undefined;

const answer = (reply: string) => upstream.handle((_req, res) => sendJson(res, 200, completionBody('gpt-4o-mini', reply)));

beforeEach(async () => {
  upstream = await startOpenAIUpstream((req, res) =>
    sendJson(res, 200, completionBody('gpt-4o-mini', `re: ${lastUserText(req)}`)),
  );
  receiver = await startLocalServer((_req, res) => sendJson(res, 200, { ok: true }));
});

afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
  await upstream.close();
  await receiver.close();
});

function start(worker: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): WorkerFixture {
  fixture = createWorkerFixture({
    defaultModel: 'up/gpt-4o-mini',
    providers: { up: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['gpt-4o-mini'] } },
    // Whole replies: the streamed path has its own tests (live.integration.test.ts).
    hooks: { support: { type: 'generic', token: 'hook-token-0123456789', replyUrl: `${receiver.url}/inbox`, stream: false } },
    worker: { attempts: 3, backoffMs: 10, lockMs: 1000, orderRecheckMs: 100, ...worker },
    ...extra,
  });
  return fixture;
}

const message = (text: string, from = 'lena'): InboundMessage => ({
  action: 'chat',
  text,
  from,
  conversation: from,
  dedupeKey: null,
  replyTo: {},
});

const deliveries = () =>
  receiver.requests.map((r) => ({ text: (r.json as { text: string }).text, key: r.headers['idempotency-key'] }));

describe('the worker pipeline', () => {
  it('answers a message, delivers the reply and remembers the exchange', async () => {
    const fx = start();
    fx.start();
    const { jobId } = await acceptMessage(fx.hub, 'support', message('hello'));
    await eventually(async () => expect(await readJobView(fx.hub, 'support', jobId)).toMatchObject({ status: 'completed' }));
    expect(deliveries()).toEqual([{ text: 're: hello', key: jobId }]);
    expect(await fx.hub.exchange.history(conversationKey('support', 'lena'))).toEqual([
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 're: hello' },
    ]);
  });

  it('answers a job queued in the previous release’s shape', async () => {
    const fx = start();
    const v1 = { hook: 'support', message: message('from before the upgrade'), receivedAt: Date.now(), after: null };
    await fx.hub.queue.add('message', v1, { jobId: 'v1-job', attempts: 3, backoff: { type: 'switchboard', delay: 10 } });
    fx.start();
    await eventually(async () => expect(await readJobView(fx.hub, 'support', 'v1-job')).toMatchObject({ status: 'completed' }));
    expect(deliveries()).toEqual([{ text: 're: from before the upgrade', key: 'v1-job' }]);
    expect(await fx.hub.exchange.history(conversationKey('support', 'lena'))).toHaveLength(2);
  });

  it('delivers the reply a previous-release job had recorded, without asking the model or storing it again', async () => {
    const fx = start();
    const v1 = {
      hook: 'support',
      message: message('asked before the upgrade'),
      receivedAt: Date.now(),
      after: null,
      reply: { text: 'answered before the upgrade', model: 'up/gpt-4o-mini', created: 1 },
      historySaved: true,
      delivered: 0,
    };
    await fx.hub.queue.add('message', v1, { jobId: 'v1-answered', attempts: 3, backoff: { type: 'switchboard', delay: 10 } });
    fx.start();
    await eventually(async () =>
      expect(await readJobView(fx.hub, 'support', 'v1-answered')).toMatchObject({ status: 'completed' }),
    );
    expect(deliveries()).toEqual([{ text: 'answered before the upgrade', key: 'v1-answered' }]);
    expect(upstream.requests).toHaveLength(0);
    expect(await fx.hub.exchange.history(conversationKey('support', 'lena'))).toEqual([]);
  });

  it('leaves a job queued by a newer release in the queue for a newer worker, without spending an attempt', async () => {
    const fx = start();
    const next = { v: 99, hook: 'support', message: message('from the next release'), receivedAt: Date.now() };
    await fx.hub.queue.add('message', next, { jobId: 'v99-job', attempts: 3, backoff: { type: 'switchboard', delay: 10 } });
    fx.start();
    await eventually(async () => {
      const job = await fx.hub.queue.getJob('v99-job');
      expect(job?.attemptsStarted).toBeGreaterThanOrEqual(1);
      expect(await job?.getState()).toBe('delayed');
    });
    const job = await fx.hub.queue.getJob('v99-job');
    expect(job?.attemptsMade).toBe(0);
    expect(job?.failedReason).toBeFalsy();
    expect(upstream.requests).toHaveLength(0);
    expect(deliveries()).toEqual([]);
  });

  it('calls the model at most attempts × (1 + fallbacks) times, whatever the providers’ own retries say', async () => {
    upstream.handle((_req, res) => sendJson(res, 500, { error: { message: 'overloaded', type: 'server_error' } }));
    const fx = start(
      { attempts: 3 },
      {
        providers: {
          up: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['gpt-4o-mini'], maxRetries: 2 },
          spare: { type: 'openai', baseUrl: `${upstream.url}/spare/v1`, models: ['gpt-4o-mini'], maxRetries: 2 },
        },
        fallbacks: { 'up/gpt-4o-mini': ['spare/gpt-4o-mini'] },
      },
    );
    fx.start();
    const { jobId } = await acceptMessage(fx.hub, 'support', message('doomed'));
    await eventually(async () =>
      expect(await readJobView(fx.hub, 'support', jobId)).toMatchObject({ status: 'failed', attempts: 3 }),
    );
    // Three attempts, each trying the model and its one fallback once: 6, not 3 × 2 × 3 = 18.
    expect(upstream.requests.filter((r) => r.url.endsWith('/chat/completions'))).toHaveLength(6);
    expect(upstream.requests.filter((r) => r.url.startsWith('/spare/'))).toHaveLength(3);
    expect(deliveries()).toEqual([]);
  });

  it('waits exactly as long as the model’s Retry-After asks before the next attempt', async () => {
    upstream.handle((_req, res) =>
      sendJson(res, 429, { error: { message: 'slow down', type: 'rate_limit' } }, { 'retry-after': '7' }),
    );
    const fx = start({ attempts: 3, backoffMs: 10 });
    fx.start();
    const { jobId } = await acceptMessage(fx.hub, 'support', message('rate limited'));
    // The state first, then the job: a job read before the worker moved it to delayed holds the
    // delay it was added with (0), however its state reads a moment later.
    await eventually(async () => expect(await fx.hub.queue.getJobState(jobId)).toBe('delayed'));
    const job = (await fx.hub.queue.getJob(jobId))!;
    // 7 s as asked, where the exponential step would have been 10 ms.
    expect(job.delay).toBe(7000);
    expect(job.attemptsMade).toBe(1);
    answer('now it works');
    await job.promote();
    await eventually(async () =>
      expect(await readJobView(fx.hub, 'support', jobId)).toMatchObject({ status: 'completed', attempts: 2 }),
    );
    expect(deliveries()).toEqual([{ text: 'now it works', key: jobId }]);
  });

  it('on shutdown cancels a model call that outlives the grace period and hands the job back without spending an attempt', async () => {
    let aborted = false;
    upstream.handle((_req, res) => {
      res.once('close', () => {
        aborted = !res.writableFinished;
      });
    });
    const fx = start({ attempts: 3 });
    const first = fx.start();
    const { jobId } = await acceptMessage(fx.hub, 'support', message('a long think'));
    await eventually(() => expect(upstream.requests).toHaveLength(1));
    await first.running.close(0);
    await eventually(() => expect(aborted).toBe(true));
    const job = await fx.hub.queue.getJob(jobId);
    // Back in the queue, due a moment later (so the closing worker cannot fetch it again).
    expect(await job?.getState()).toBe('delayed');
    expect(job?.attemptsMade).toBe(0);

    answer('thought it through');
    fx.start();
    await eventually(async () =>
      expect(await readJobView(fx.hub, 'support', jobId)).toMatchObject({ status: 'completed', attempts: 1 }),
    );
    expect(deliveries()).toEqual([{ text: 'thought it through', key: jobId }]);
  });

  it('stores the exchange once when a worker is killed between the answer and the acknowledgement', async () => {
    // The receiver holds the first delivery open: the answer exists, the job is not acknowledged.
    let held = 0;
    receiver.handle((_req, res) => {
      if (++held === 1) return; // never answered
      sendJson(res, 200, { ok: true });
    });
    const fx = start({ attempts: 3, lockMs: 1000 });
    const child = fx.spawn();
    const { jobId } = await acceptMessage(fx.hub, 'support', message('remember me once'));
    await eventually(() => expect(receiver.requests).toHaveLength(1), 400, 25);
    child.kill('SIGKILL');
    await once(child, 'exit');

    fx.start(); // another worker finds the job stalled once its lock runs out, and runs it again
    await eventually(
      async () => expect(await readJobView(fx.hub, 'support', jobId)).toMatchObject({ status: 'completed' }),
      400,
      25,
    );
    expect(upstream.requests).toHaveLength(1);
    expect(await fx.hub.exchange.history(conversationKey('support', 'lena'))).toEqual([
      { role: 'user', content: 'remember me once' },
      { role: 'assistant', content: 're: remember me once' },
    ]);
    // The delivery in flight when the worker died is sent again, with the same reply and key.
    expect(deliveries()).toEqual([
      { text: 're: remember me once', key: jobId },
      { text: 're: remember me once', key: jobId },
    ]);
  });
});
