import { createHmac } from 'node:crypto';
import { AppError } from '@switchboard/protocol';
import { jsonRequest } from '@switchboard/testing';
import { describe, expect, it } from 'vitest';
import type { InboundRequest } from '../definition.js';
import { createHook, type Hook } from '../hooks.js';
import { routeDelivery } from '../route-delivery.js';
import { slack } from '../slack/slack-channel.js';
import { telegram } from '../telegram/telegram-channel.js';
import { deliveryErrorFrom } from '../test-support/errors.js';
import { mapped } from './mapped-channel.js';
import { type MappedConfig, mappedConfigSchema } from './mapped-config.js';

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
const STRIPE_SECRET = 'whsec_stripe_unit_secret';

function config(extra: Record<string, unknown>): MappedConfig {
  return mappedConfigSchema.parse({ verify: { scheme: 'token', token: 'unit-token-0123' }, template: 'hi {{name}}', ...extra });
}

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const outcome = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (outcome instanceof AppError) return outcome;
  throw new Error(`expected an AppError, got ${String(outcome)}`);
}

function stripeRequest(body: unknown, at: number, secret = STRIPE_SECRET): InboundRequest {
  const raw = JSON.stringify(body);
  const signature = createHmac('sha256', secret).update(`${at}.${raw}`).digest('hex');
  return jsonRequest(body, { 'stripe-signature': `t=${at},v1=deadbeef,v1=${signature}` }, NOW);
}

describe('mapped hooks: verification', () => {
  const stripe = config({ verify: { scheme: 'stripe', secret: STRIPE_SECRET }, template: '{{type}}' });
  const event = { id: 'evt_1', type: 'invoice.paid' };

  it('accepts a Stripe signature among several v1 values, and takes the event id as the dedupe key', async () => {
    const inbound = await mapped.receive(stripeRequest(event, NOW / 1000), stripe);
    expect(inbound.kind === 'message' && inbound.message).toMatchObject({ text: 'invoice.paid', dedupeKey: 'delivery:evt_1' });
  });

  it('refuses a Stripe timestamp outside the tolerance, in the past or the future, and a wrong secret', async () => {
    for (const at of [NOW / 1000 - 301, NOW / 1000 + 301]) {
      const err = await rejection(Promise.resolve().then(() => mapped.receive(stripeRequest(event, at), stripe)));
      expect(err).toMatchObject({ status: 401, code: 'invalid_signature' });
    }
    const forged = await rejection(
      Promise.resolve().then(() => mapped.receive(stripeRequest(event, NOW / 1000, 'whsec_other_secret'), stripe)),
    );
    expect(forged.status).toBe(401);
  });

  it('checks an HMAC in the configured header, prefix and encoding, with the sender’s delivery id', async () => {
    const hmac = config({
      verify: {
        scheme: 'hmac-sha256',
        secret: 'hmac-secret-0123',
        header: 'X-Signature',
        prefix: 'sha256=',
        encoding: 'base64',
        idHeader: 'X-Delivery',
      },
    });
    const raw = JSON.stringify({ name: 'ada' });
    const digest = createHmac('sha256', 'hmac-secret-0123').update(raw).digest('base64');
    const ok = await mapped.receive(jsonRequest(raw, { 'x-signature': `sha256=${digest}`, 'x-delivery': 'd-1' }, NOW), hmac);
    expect(ok.kind === 'message' && ok.message).toMatchObject({ text: 'hi ada', dedupeKey: 'delivery:d-1' });
    const bad = await rejection(
      Promise.resolve().then(() => mapped.receive(jsonRequest(raw, { 'x-signature': digest }, NOW), hmac)),
    );
    expect(bad.status).toBe(401);
  });
});

describe('mapped hooks: filter, templates and delivery', () => {
  const token = { authorization: 'Bearer unit-token-0123' };

  it('ignores with 202 what the filter leaves out: a header, a nested path, a value outside the list', async () => {
    const filtered = config({
      filter: { header: { 'X-Event': ['push', 'pull_request'] }, body: { action: 'opened', 'pr.draft': false } },
    });
    const cases: [Record<string, string>, unknown, boolean][] = [
      [{ 'x-event': 'push' }, { action: 'opened', pr: { draft: false }, name: 'a' }, true],
      [{ 'x-event': 'issues' }, { action: 'opened', pr: { draft: false } }, false],
      [{}, { action: 'opened', pr: { draft: false } }, false],
      [{ 'x-event': 'push' }, { action: 'opened', pr: { draft: true } }, false],
      [{ 'x-event': 'push' }, { action: 'opened' }, false],
      [{ 'x-event': 'push' }, { action: 'closed', pr: { draft: false } }, false],
    ];
    for (const [headers, body, acted] of cases) {
      const inbound = await mapped.receive(jsonRequest(body, { ...token, ...headers }, NOW), filtered);
      if (acted) expect(inbound.kind).toBe('message');
      else expect(inbound).toEqual({ kind: 'answer', answer: { status: 202, body: { status: 'ignored' } } });
    }
  });

  it('renders the prompt as plain text (no HTML escaping), the conversation key and the target from the payload', async () => {
    const through = config({
      template: '{{title}} & {{#labels}}[{{.}}]{{/labels}}',
      conversation: '{{repo}}#{{number}}',
      deliver: { hook: 'team', channel: 'C1', thread: '{{thread}}' },
    });
    const body = { title: '<b>"Fix"</b>', labels: ['bug', null], repo: 'acme/app', number: 7, thread: '1.5' };
    const inbound = await mapped.receive(jsonRequest(body, token, NOW), through);
    expect(inbound.kind === 'message' && inbound.message).toMatchObject({
      text: '<b>"Fix"</b> & [bug][]',
      conversation: 'acme/app#7',
      deliverVia: { hook: 'team', target: { channel: 'C1', thread: '1.5' } },
    });
  });

  it('answers 400 when the template renders nothing, and acks a repeat 200 duplicate without the job id', async () => {
    const empty = await rejection(
      Promise.resolve().then(() => mapped.receive(jsonRequest({ other: 1 }, token, NOW), config({ template: '{{name}}' }))),
    );
    expect(empty).toMatchObject({ status: 400, param: 'template' });
    const inbound = await mapped.receive(jsonRequest({ name: 'x' }, token, NOW), config({ deliver: { wait: '2s' } }));
    if (inbound.kind !== 'message') throw new Error('expected a message');
    expect(inbound.waitMs).toBe(2000);
    expect(inbound.ack('job-1', false)).toEqual({ status: 202, body: { id: 'job-1', status: 'queued' } });
    expect(inbound.ack('job-1', true)).toEqual({ status: 200, body: { status: 'duplicate' } });
  });

  it('routes a reply through the named hook, its target made that channel’s replyTo; a bad target fails for good', async () => {
    const team: Hook = createHook('team', {
      type: 'slack' as const,
      ...slack.config.parse({ signingSecret: 'secret-0123', botToken: 'xoxb-0123', stream: false }),
    });
    const tg = createHook('tg', {
      type: 'telegram' as const,
      ...telegram.config.parse({ botToken: '1:token-0123', secretToken: 's', stream: false }),
    });
    const hooks = new Map<string, Hook>([
      ['team', team],
      ['tg', tg],
    ]);
    const message = { action: 'chat' as const, text: 'x', from: 'c', conversation: 'c', dedupeKey: null, replyTo: {} };
    const toChannel = routeDelivery(hooks, team, {
      ...message,
      deliverVia: { hook: 'team', target: { channel: 'C1', thread: '' } },
    });
    expect(toChannel.hook).toBe(team);
    expect(toChannel.message.replyTo).toEqual({ channel: 'C1' });
    const chat = routeDelivery(hooks, team, { ...message, deliverVia: { hook: 'tg', target: { chat: '-100123' } } });
    expect(chat.message.replyTo).toEqual({ chat_id: -100123 });
    const bad = await deliveryErrorFrom(
      Promise.resolve().then(() =>
        routeDelivery(hooks, team, { ...message, deliverVia: { hook: 'tg', target: { chat: 'general' } } }),
      ),
    );
    expect(bad.retryable).toBe(false);
    await Promise.all([team.close(), tg.close()]);
  });
});
