import type { InboundMessage } from '@switchboard/protocol';
import { type FakeWhatsApp, sendJson, startFakeWhatsApp, WHATSAPP_PHONE_NUMBER_ID } from '@switchboard/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createHook, type Hook } from '../hooks.js';
import { deliveryErrorFrom } from '../test-support/errors.js';
import { whatsapp as whatsappChannel } from './whatsapp-channel.js';

const ACCESS_TOKEN = 'EAAG-whatsapp-access-token-0123';
const APP_SECRET = 'whatsapp-app-secret-0123';
const META = { jobId: 'job_abc123', hook: 'wa', model: 'local/echo', created: 1_736_942_400 };
const MESSAGE: InboundMessage = {
  action: 'chat',
  text: 'Does it come in another color?',
  from: '16505551234',
  conversation: `${WHATSAPP_PHONE_NUMBER_ID}:16505551234`,
  dedupeKey: 'wamid.in1',
  replyTo: { phone_number_id: WHATSAPP_PHONE_NUMBER_ID, to: '16505551234', message_id: 'wamid.in1' },
};

let graph: FakeWhatsApp | undefined;
let hook: Hook | undefined;

afterEach(async () => {
  await hook?.close();
  await graph?.close();
  hook = graph = undefined;
});

async function start(config: Record<string, unknown> = {}) {
  graph = await startFakeWhatsApp({ accessToken: ACCESS_TOKEN, phoneNumberId: WHATSAPP_PHONE_NUMBER_ID });
  hook = createHook('wa', {
    type: 'whatsapp' as const,
    ...whatsappChannel.config.parse({
      appSecret: APP_SECRET,
      verifyToken: 'verify-me-0123',
      accessToken: ACCESS_TOKEN,
      apiUrl: graph.url,
      ...config,
    }),
  });
  return { graph, hook };
}

describe('WhatsApp channel', () => {
  it('sends the first part quoting the customer message, later parts plainly, with the access token', async () => {
    const { graph, hook } = await start();
    graph.customerWrote('16505551234');
    await hook.deliver(MESSAGE, 'It comes in blue.', 0, META);
    await hook.deliver(MESSAGE, 'And in red.', 1, META);
    const [first, second] = graph.server.requests;
    expect(first?.url).toBe(`/v23.0/${WHATSAPP_PHONE_NUMBER_ID}/messages`);
    expect(first?.headers.authorization).toBe(`Bearer ${ACCESS_TOKEN}`);
    expect(first?.json).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '16505551234',
      type: 'text',
      text: { body: 'It comes in blue.', preview_url: false },
      context: { message_id: 'wamid.in1' },
    });
    expect(second?.json).not.toHaveProperty('context');
    expect(graph.sent.map((m) => m.body)).toEqual(['It comes in blue.', 'And in red.']);
  });

  it('sends the model’s Markdown in WhatsApp’s own formatting', async () => {
    const { graph, hook } = await start();
    graph.customerWrote('16505551234');
    const markdown =
      '## Colours\n\n**Blue** is *calm*, ~~red~~ is loud: see [the chart](https://example.com/c).\n\n```\nblue = 0x0000ff\n```';
    await hook.deliver(MESSAGE, markdown, 0, META);
    expect(graph.sent.map((m) => m.body)).toEqual([
      '*Colours*\n\n*Blue* is _calm_, ~red~ is loud: see the chart (https://example.com/c).\n\n```\nblue = 0x0000ff\n```',
    ]);
  });

  it('splits at 4096 characters', async () => {
    const { hook } = await start();
    // Markdown-aware: room is kept in each piece to close and reopen a code block cut in two.
    expect(hook.split('a'.repeat(5000)).map((piece) => piece.length)).toEqual([4056, 944]);
  });

  it('fails for good, saying why, outside the 24-hour customer-service window (131047)', async () => {
    const { graph, hook } = await start();
    graph.customerWrote('16505551234', Date.now() - 25 * 60 * 60 * 1000);
    const failure = await deliveryErrorFrom(hook.deliver(MESSAGE, 'Too late?', 0, META));
    expect(failure.retryable).toBe(false);
    expect(failure.options.credentialsRefused).toBeUndefined();
    expect(failure.message).toMatch(/more than 24 hours ago, outside WhatsApp's customer-service window/);
    expect(failure.message).toContain('131047');
    expect(graph.sent).toHaveLength(0);
  });

  it('flags a refused access token, naming the call but never the token', async () => {
    const { hook } = await start({ accessToken: 'EAAG-revoked-token-0123' });
    const failure = await deliveryErrorFrom(hook.deliver(MESSAGE, 'x', 0, META));
    expect(failure.retryable).toBe(false);
    expect(failure.options.credentialsRefused).toBe(true);
    expect(failure.message).toMatch(/^Hook 'wa': WhatsApp messages failed with 401 \(190\)/);
    expect(failure.message).not.toContain('EAAG-revoked-token-0123');
  });

  it('retries throttling (130429) and 5xx, with the Retry-After it was given', async () => {
    const { graph, hook } = await start();
    graph.server.handle((_req, res) =>
      sendJson(res, 400, { error: { message: '(#130429) Rate limit hit', code: 130429 } }, { 'retry-after': '2' }),
    );
    const throttled = await deliveryErrorFrom(hook.deliver(MESSAGE, 'x', 0, META));
    expect(throttled.retryable).toBe(true);
    expect(throttled.retryAfterMs).toBe(2000);
    graph.server.handle((_req, res) => {
      res.writeHead(503, { 'content-type': 'text/html' }).end('<html>down</html>');
    });
    expect((await deliveryErrorFrom(hook.deliver(MESSAGE, 'x', 0, META))).retryable).toBe(true);
  });

  it('checks the credentials with GET /{phone_number_id}, and has nothing to check without one', async () => {
    const { graph } = await start({ phoneNumberId: WHATSAPP_PHONE_NUMBER_ID });
    expect(await hook?.checkCredentials?.()).toEqual({ connected: true });
    const refused = await check({
      apiUrl: graph.url,
      accessToken: 'EAAG-revoked-token-0123',
      phoneNumberId: WHATSAPP_PHONE_NUMBER_ID,
    });
    expect(refused?.connected).toBe(false);
    expect(refused?.reason).not.toContain('EAAG-revoked-token-0123');
    expect(await check({ apiUrl: graph.url })).toEqual({ connected: null });
  });
});

/** The credential check of a hook of its own, closed after. */
async function check(config: Record<string, unknown>) {
  const other = createHook('wa', {
    type: 'whatsapp' as const,
    ...whatsappChannel.config.parse({
      appSecret: APP_SECRET,
      verifyToken: 'verify-me-0123',
      accessToken: ACCESS_TOKEN,
      ...config,
    }),
  });
  try {
    return await other.checkCredentials?.();
  } finally {
    await other.close();
  }
}
