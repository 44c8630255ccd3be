import type { InboundMessage } from '@switchboard/protocol';
import { type LocalServer, sendJson, startLocalServer } from '@switchboard/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createHook, type Hook } from '../hooks.js';
import { deliveryErrorFrom as failure } from '../test-support/errors.js';
import { generic as genericChannel } from './generic-channel.js';

const TOKEN = 'hook-token-0123456789';
const META = { jobId: 'job_abc123', hook: 'support', model: 'local/echo', created: 1_736_942_400 };
const MESSAGE: InboundMessage = {
  action: 'chat',
  text: 'hi',
  from: 'user-7',
  conversation: 'user-7',
  dedupeKey: null,
  replyTo: {},
};

let server: LocalServer | undefined;
let adapter: Hook | undefined;

afterEach(async () => {
  await adapter?.close();
  await server?.close();
  adapter = undefined;
  server = undefined;
});

async function receiver(status: number, body: unknown, headers: Record<string, string> = {}) {
  server = await startLocalServer((_req, res) => sendJson(res, status, body, headers));
  adapter = createHook('support', {
    type: 'generic' as const,
    ...genericChannel.config.parse({ token: TOKEN, replyUrl: `${server.url}/replies` }),
  });
  return { server, adapter };
}

describe('GenericAdapter delivery', () => {
  it('POSTs the reply as JSON to replyUrl with the job id as Idempotency-Key', async () => {
    const { server, adapter } = await receiver(200, { received: true });
    await adapter.deliver(MESSAGE, 'Hello!', 0, META);
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/replies');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['idempotency-key']).toBe('job_abc123');
    expect(request?.json).toEqual({
      id: 'job_abc123',
      hook: 'support',
      to: 'user-7',
      text: 'Hello!',
      model: 'local/echo',
      created: 1_736_942_400,
    });
  });

  it('keys later parts by job id and index', async () => {
    const { server, adapter } = await receiver(204, null);
    await adapter.deliver(MESSAGE, 'part two', 1, META);
    expect(server.requests[0]?.headers['idempotency-key']).toBe('job_abc123:1');
  });

  it('sends the whole reply as one piece', async () => {
    const { adapter } = await receiver(200, {});
    const long = 'x'.repeat(100_000);
    expect(adapter.split(long)).toEqual([long]);
  });

  it('does nothing without a replyUrl', async () => {
    adapter = createHook('support', { type: 'generic' as const, ...genericChannel.config.parse({ token: TOKEN }) });
    await expect(adapter.deliver(MESSAGE, 'Hello!', 0, META)).resolves.toBeUndefined();
  });

  it('retries a 503 and a 429, keeping the Retry-After delay', async () => {
    const { server, adapter } = await receiver(503, { error: 'busy' });
    expect((await failure(adapter.deliver(MESSAGE, 'x', 0, META))).retryable).toBe(true);
    server.handle((_req, res) => sendJson(res, 429, { error: 'slow down' }, { 'retry-after': '7' }));
    const limited = await failure(adapter.deliver(MESSAGE, 'x', 0, META));
    expect(limited.retryable).toBe(true);
    expect(limited.options.retryAfterMs).toBe(7000);
  });

  it('flags 401 and 403 as refused credentials', async () => {
    const { server, adapter } = await receiver(401, { error: 'who are you' });
    const refused = await failure(adapter.deliver(MESSAGE, 'x', 0, META));
    expect(refused.retryable).toBe(false);
    expect(refused.options.credentialsRefused).toBe(true);
    server.handle((_req, res) => sendJson(res, 403, {}));
    expect((await failure(adapter.deliver(MESSAGE, 'x', 0, META))).options.credentialsRefused).toBe(true);
  });

  it('gives up on other client errors', async () => {
    const { adapter } = await receiver(422, { error: 'unknown recipient' });
    const error = await failure(adapter.deliver(MESSAGE, 'x', 0, META));
    expect(error.retryable).toBe(false);
    expect(error.options.credentialsRefused).toBeUndefined();
    expect(error.message).toContain('422');
  });

  it('retries when the receiver cannot be reached', async () => {
    const { server, adapter } = await receiver(200, {});
    await server.close();
    const error = await failure(adapter.deliver(MESSAGE, 'x', 0, META));
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('ECONNREFUSED');
  });
});
