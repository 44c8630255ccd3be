import {
  WHATSAPP_PHONE_NUMBER_ID,
  type WhatsAppGraph,
  whatsappGraph,
  whatsappSignature,
  whatsappStatusWebhook,
  whatsappTextWebhook,
} from '@switchboard/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../test-support/start-gateway.js';
import { type HookHarness, startHookHarness } from '../test-support/start-hook-harness.js';

const APP_SECRET = 'whatsapp-app-secret-0123';
const VERIFY_TOKEN = 'whatsapp-verify-token-0123';
const ACCESS_TOKEN = 'EAAG-whatsapp-access-token-0123';
const DAY_MS = 24 * 60 * 60 * 1000;

let graph: WhatsAppGraph;
let harness: HookHarness;

beforeAll(async () => {
  graph = whatsappGraph({ accessToken: ACCESS_TOKEN, phoneNumberId: WHATSAPP_PHONE_NUMBER_ID });
  const hook = (apiUrl: string) => ({
    type: 'whatsapp',
    appSecret: APP_SECRET,
    verifyToken: VERIFY_TOKEN,
    accessToken: ACCESS_TOKEN,
    apiUrl,
  });
  harness = await startHookHarness({
    platform: graph.handler,
    hooks: (url) => ({ wa: hook(url), late: hook(url), plain: { type: 'generic', token: 'generic-token-0123' } }),
  });
});

afterEach(() => harness.reset());
afterAll(async () => harness?.close());

let seq = 0;
/** A customer of its own (so tests never share a conversation) and a fresh wamid. */
function textFrom(text: string, from = `1650555${String(++seq).padStart(4, '0')}`) {
  return whatsappTextWebhook({ from, id: `wamid.e2e${++seq}`, text: { body: text } });
}

/** Sends `body` as Meta does, signed with the app secret unless `headers` says otherwise. */
function send(body: unknown, options: { hook?: string; headers?: Record<string, string> } = {}) {
  const raw = JSON.stringify(body);
  return harness.post(
    options.hook ?? 'wa',
    raw,
    options.headers ?? { 'x-hub-signature-256': whatsappSignature(APP_SECRET, raw) },
  );
}

const sentTo = (to: string) => graph.sent.filter((m) => m.to === to).map((m) => m.body);
const handshake = (hook: string, query: Record<string, string>) =>
  fetch(`${harness.gateway.url}/hooks/${hook}?${new URLSearchParams(query)}`);

describe('WhatsApp hooks', () => {
  it('answers the GET handshake with hub.challenge, and 403 for another verify token', async () => {
    const ok = await handshake('wa', {
      'hub.mode': 'subscribe',
      'hub.verify_token': VERIFY_TOKEN,
      'hub.challenge': '1158201444',
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await ok.text()).toBe('1158201444');
    const refused = await handshake('wa', { 'hub.mode': 'subscribe', 'hub.verify_token': 'guess', 'hub.challenge': '1' });
    expect(refused.status).toBe(403);
    expect((await refused.json()).error).toMatchObject({ type: 'authentication_error', code: 'invalid_token' });
    // A channel without a handshake keeps answering GET with 405.
    expect((await handshake('plain', {})).status).toBe(405);
  });

  it('answers 401 for unsigned or wrongly signed deliveries, 400 for garbage, 200 for status updates, and queues none', async () => {
    const body = textFrom('let me in');
    const unsigned = await send(body, { headers: {} });
    expect(unsigned.status).toBe(401);
    expect((await unsigned.json()).error).toMatchObject({ type: 'authentication_error', code: 'invalid_signature' });
    const forged = await send(body, {
      headers: { 'x-hub-signature-256': whatsappSignature('not-the-secret', JSON.stringify(body)) },
    });
    expect(forged.status).toBe(401);
    const garbage = '{"object":"whatsapp_business_account","entry":"nope"}';
    const malformed = await harness.post('wa', garbage, { 'x-hub-signature-256': whatsappSignature(APP_SECRET, garbage) });
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error.param).toBe('entry');
    const status = await send(whatsappStatusWebhook('delivered'));
    expect(status.status).toBe(200);
    expect((await harness.channel('wa')).messages_in).toBe(0);
    // One log line per refused delivery, naming neither the secret nor the body.
    const lines = harness.gateway.logs.filter((line) => line.path === '/hooks/wa' && line.status === 401);
    expect(lines).toHaveLength(2);
    expect(JSON.stringify(lines)).not.toContain(APP_SECRET);
  });

  it('acknowledges a message at once and answers it from the same number, quoting it', async () => {
    const release = harness.holdModel();
    const body = textFrom('Does it come in blue?');
    const { from, id } = body.entry[0].changes[0].value.messages[0]!;
    graph.customerWrote(from);
    const res = await send(body);
    expect(res.status).toBe(200);
    expect(sentTo(from)).toHaveLength(0); // acknowledged before the model has answered
    release();
    await eventually(() => expect(sentTo(from)).toEqual(['reply to: Does it come in blue? (history: 0)']), 200);
    expect(graph.sent.find((m) => m.to === from)?.replyTo).toBe(id);
  });

  it('answers every message of a batched delivery, in order, and a repeated delivery once', async () => {
    const body = textFrom('first');
    const [first] = body.entry[0].changes[0].value.messages;
    body.entry[0].changes[0].value.messages.push({ ...first, id: `${first!.id}-2`, text: { body: 'second' } });
    graph.customerWrote(first!.from);
    expect((await send(body)).status).toBe(200);
    expect((await send(body)).status).toBe(200); // Meta retries a delivery it thinks failed
    await eventually(
      () => expect(sentTo(first!.from)).toEqual(['reply to: first (history: 0)', 'reply to: second (history: 2)']),
      200,
    );
    expect(harness.modelCalls('first')).toBe(1);
  });

  it('fails the job once, with a clear error, when the 24-hour customer-service window has closed', async () => {
    const body = textFrom('answer me tomorrow');
    const { from } = body.entry[0].changes[0].value.messages[0]!;
    graph.customerWrote(from, Date.now() - DAY_MS - 60_000);
    const { failed: before } = await harness.queue();
    expect((await send(body, { hook: 'late' })).status).toBe(200);
    await eventually(async () => expect((await harness.queue()).failed).toBe(before + 1), 200);
    const channel = await eventually(async () => {
      const late = await harness.channel('late');
      expect(late.last_error).toBeTruthy();
      return late;
    });
    expect(channel.last_error).toMatch(/outside WhatsApp's customer-service window/);
    expect(channel.last_error).not.toContain(ACCESS_TOKEN);
    // No retry loop: one refused send, and the token is not blamed.
    expect(harness.platform.requests.filter((r) => (r.json as { to?: string } | undefined)?.to === from)).toHaveLength(1);
    expect(channel.connected).not.toBe(false);
    expect(harness.modelCalls('answer me tomorrow')).toBe(1);
  });
});
