import { createHmac, randomUUID } from 'node:crypto';
import { type Handler, type LocalServer, sendJson, slackPostedMessage, startLocalServer } from '@switchboard/testing';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../test-support/start-gateway.js';
import { type HookHarness, startHookHarness } from '../test-support/start-hook-harness.js';

const GITHUB_SECRET = 'github-webhook-secret-0123';
const STRIPE_SECRET = 'whsec_stripe_endpoint_secret_0123';
const SVIX_SECRET = 'whsec_LPrFnJMJ9lSERQzCPnkGJ98erJc81bXH';
const EVENTS_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const PLAIN_TOKEN = 'plain-hook-token-0123';
const BOT_TOKEN = 'xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy';

/** chat.postMessage as Slack answers it; a channel the bot is not in gets `channel_not_found`. */
const slackApi: Handler = (req, res) => {
  if (req.url === '/inbox') return sendJson(res, 200, { ok: true });
  if (req.url !== '/api/chat.postMessage') return sendJson(res, 404, { ok: false, error: 'unknown_method' });
  if (req.headers.authorization !== `Bearer ${BOT_TOKEN}`) return sendJson(res, 200, { ok: false, error: 'invalid_auth' });
  const { channel, text } = req.json as { channel: string; text: string };
  if (channel === 'C_GONE') return sendJson(res, 200, { ok: false, error: 'channel_not_found' });
  sendJson(res, 200, slackPostedMessage(channel, text));
};

let harness: HookHarness;
let events: LocalServer;

beforeAll(async () => {
  events = await startLocalServer((_req, res) => sendJson(res, 200, {}));
  const eventsConfig = { url: `${events.url}/events`, secret: EVENTS_SECRET };
  const github = (channel: string) => ({
    type: 'mapped',
    verify: { scheme: 'github', secret: GITHUB_SECRET },
    filter: { header: { 'X-GitHub-Event': 'pull_request' }, body: { action: 'opened' } },
    template: 'Summarise PR #{{pull_request.number}} of {{repository.full_name}}: {{pull_request.title}}',
    conversation: '{{repository.full_name}}#{{pull_request.number}}',
    deliver: { hook: 'team-slack', channel },
    events: eventsConfig,
  });
  harness = await startHookHarness({
    platform: slackApi,
    hooks: (platformUrl) => ({
      'team-slack': {
        type: 'slack',
        signingSecret: '8f742231b10e8888abcd99yyyzzz85a5',
        botToken: BOT_TOKEN,
        apiUrl: `${platformUrl}/api`,
        stream: false,
      },
      github: github('C123'),
      'github-gone': github('C_GONE'),
      billing: {
        type: 'mapped',
        verify: { scheme: 'stripe', secret: STRIPE_SECRET },
        template: 'Explain {{type}} for {{data.object.customer}}',
        conversation: '{{data.object.customer}}',
        deliver: { wait: '10s' },
      },
      plain: {
        type: 'mapped',
        verify: { scheme: 'token', token: PLAIN_TOKEN },
        template: 'Order {{order.id}} is {{order.state}}',
        conversation: 'order-{{order.id}}',
        deliver: { replyUrl: `${platformUrl}/inbox` },
      },
      alerts: {
        type: 'mapped',
        verify: { scheme: 'standard-webhooks', secret: SVIX_SECRET },
        template: 'Alert: {{alert.title}}',
        deliver: { hook: 'team-slack', channel: 'C777', thread: '{{alert.thread}}' },
      },
    }),
  });
});

afterEach(() => {
  harness.reset();
  events.handle((_req, res) => sendJson(res, 200, {}));
});

afterAll(async () => {
  await harness?.close();
  await events?.close();
});

function pullRequest(number: number, action = 'opened') {
  return JSON.stringify({
    action,
    number,
    pull_request: { number, title: `Feature ${number}`, draft: false },
    repository: { full_name: 'acme/widgets' },
  });
}

function githubHeaders(body: string, event = 'pull_request', secret = GITHUB_SECRET) {
  return {
    'x-github-event': event,
    'x-github-delivery': randomUUID(),
    'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
  };
}

function stripeHeaders(body: string, at = Math.floor(Date.now() / 1000)) {
  const signature = createHmac('sha256', STRIPE_SECRET).update(`${at}.${body}`).digest('hex');
  return { 'stripe-signature': `t=${at},v1=${signature}` };
}

function svixHeaders(body: string, id = `msg_${randomUUID()}`) {
  const now = new Date();
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': new Webhook(SVIX_SECRET).sign(id, now, body),
  };
}

const postsTo = (channel: string) =>
  harness.platform.requests
    .filter((r) => r.url === '/api/chat.postMessage' && (r.json as { channel: string }).channel === channel)
    .map((r) => r.json as { channel: string; text: string; thread_ts?: string });

/** The events the receiver got for a job, each checked against its Standard Webhooks signature first. */
function eventsFor(jobId: string) {
  return events.requests
    .map(
      (r) =>
        new Webhook(EVENTS_SECRET).verify(r.body, r.headers as Record<string, string>) as {
          data: { job_id: string; error?: string };
        },
    )
    .filter((event) => event.data.job_id === jobId);
}

/** The one event the receiver got for a job, once it came. */
async function eventFor(jobId: string) {
  const found = await eventually(async () => {
    const received = eventsFor(jobId);
    if (received.length === 0) throw new Error('no event yet');
    return received;
  });
  expect(found).toHaveLength(1);
  return found[0];
}

describe('mapped hooks: GitHub into a Slack channel', () => {
  it('turns a signed pull_request opened into a summary posted in the configured Slack channel, and reports it delivered', async () => {
    const body = pullRequest(42);
    const res = await harness.post('github', body, githubHeaders(body));
    expect(res.status).toBe(202);
    const { id, status } = await res.json();
    expect(status).toBe('queued');

    const posted = await eventually(async () => {
      const [post] = postsTo('C123');
      if (!post) throw new Error('nothing posted yet');
      return post;
    });
    expect(posted).toEqual({ channel: 'C123', text: 'reply to: Summarise PR #42 of acme/widgets: Feature 42 (history: 0)' });
    const event = await eventFor(id);
    expect(event).toEqual({
      type: 'message.delivered',
      timestamp: expect.any(String),
      data: { job_id: id, hook: 'github', target: { hook: 'team-slack', channel: 'C123' }, attempts: 1 },
    });
  });

  it('reports message.failed when the target channel refuses the reply for good', async () => {
    const body = pullRequest(7);
    const { id } = await (await harness.post('github-gone', body, githubHeaders(body))).json();
    const event = await eventFor(id);
    expect(event).toMatchObject({
      type: 'message.failed',
      data: { job_id: id, hook: 'github-gone', target: { hook: 'team-slack', channel: 'C_GONE' }, attempts: 1 },
    });
    expect(event?.data.error).toMatch(/channel_not_found/);
  });

  it('answers 202 ignored for events the filter leaves out, and asks the model nothing', async () => {
    const closed = pullRequest(43, 'closed');
    const issue = JSON.stringify({ action: 'opened', issue: { number: 1 }, repository: { full_name: 'acme/widgets' } });
    for (const [body, event] of [
      [closed, 'pull_request'],
      [issue, 'issues'],
    ] as const) {
      const res = await harness.post('github', body, githubHeaders(body, event));
      expect(res.status).toBe(202);
      expect(await res.json()).toEqual({ status: 'ignored' });
    }
    expect(harness.modelCalls('Summarise PR #43 of acme/widgets: Feature 43')).toBe(0);
    expect(harness.upstream.requests.some((r) => JSON.stringify(r.json).includes('Feature 43'))).toBe(false);
  });

  it('answers 401 for a wrong or missing signature and 400 for a signed body that is not JSON', async () => {
    const body = pullRequest(44);
    const forged = await harness.post('github', body, githubHeaders(body, 'pull_request', 'not-the-secret-000'));
    expect(forged.status).toBe(401);
    expect((await forged.json()).error).toMatchObject({ type: 'authentication_error', code: 'invalid_signature' });
    expect((await harness.post('github', body, { 'x-github-event': 'pull_request' })).status).toBe(401);
    const garbage = '{"action": "opened",';
    const res = await harness.post('github', garbage, githubHeaders(garbage));
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe('invalid_json');
  });
});

describe('mapped hooks: Stripe, waiting for the reply', () => {
  it('holds the request and answers with the reply as JSON', async () => {
    const body = JSON.stringify({ id: `evt_${randomUUID()}`, type: 'invoice.paid', data: { object: { customer: 'cus_9' } } });
    const res = await harness.post('billing', body, stripeHeaders(body));
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      status: 'completed',
      reply: 'reply to: Explain invoice.paid for cus_9 (history: 0)',
    });
  });

  it('answers 401 for a stale Stripe timestamp, however well signed', async () => {
    const body = JSON.stringify({ id: `evt_${randomUUID()}`, type: 'invoice.paid', data: { object: { customer: 'cus_1' } } });
    const res = await harness.post('billing', body, stripeHeaders(body, Math.floor(Date.now() / 1000) - 600));
    expect(res.status).toBe(401);
    expect((await res.json()).error.message).toMatch(/tolerance/);
    expect(harness.modelCalls('Explain invoice.paid for cus_1')).toBe(0);
  });
});

describe('mapped hooks: back to the caller', () => {
  it('POSTs the reply to replyUrl and lets the token holder read the job', async () => {
    const body = JSON.stringify({ order: { id: 'o-17', state: 'late' } });
    const auth = { authorization: `Bearer ${PLAIN_TOKEN}` };
    const { id } = await (await harness.post('plain', body, auth)).json();
    const delivered = await eventually(async () => {
      const found = harness.platform.requests.find((r) => r.url === '/inbox' && (r.json as { id: string }).id === id);
      if (!found) throw new Error('nothing POSTed yet');
      return found;
    });
    expect(delivered.json).toEqual({
      id,
      hook: 'plain',
      conversation: 'order-o-17',
      text: 'reply to: Order o-17 is late (history: 0)',
      model: 'mock/gpt-4o-mini',
      created: expect.any(Number),
    });
    await eventually(async () => {
      const view = await fetch(`${harness.gateway.url}/hooks/plain/jobs/${id}`, { headers: auth });
      expect(await view.json()).toMatchObject({ id, status: 'completed', reply: 'reply to: Order o-17 is late (history: 0)' });
    });
    expect((await fetch(`${harness.gateway.url}/hooks/plain/jobs/${id}`)).status).toBe(401);
  });
});

describe('mapped hooks: Standard Webhooks', () => {
  it('answers a replayed delivery 200 duplicate and queues it no second time', async () => {
    const body = JSON.stringify({ alert: { title: 'disk full on db-1', thread: '1736942401.000100' } });
    const headers = svixHeaders(body);
    const first = await harness.post('alerts', body, headers);
    expect(first.status).toBe(202);
    const replay = await harness.post('alerts', body, headers);
    expect(replay.status).toBe(200);
    expect(await replay.json()).toEqual({ status: 'duplicate' });

    await eventually(async () => {
      if (postsTo('C777').length === 0) throw new Error('nothing posted yet');
    });
    expect(postsTo('C777')).toEqual([
      { channel: 'C777', thread_ts: '1736942401.000100', text: 'reply to: Alert: disk full on db-1 (history: 0)' },
    ]);
    expect(harness.modelCalls('Alert: disk full on db-1')).toBe(1);
  });

  it('answers 401 when the signature does not match the body', async () => {
    const body = JSON.stringify({ alert: { title: 'tampered' } });
    const res = await harness.post('alerts', body, svixHeaders(JSON.stringify({ alert: { title: 'original' } })));
    expect(res.status).toBe(401);
  });
});
