import { chunkBody, type LocalServer, openSse, startOpenAIUpstream, writeSse } from '@switchboard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawConnection } from './test-support/raw-socket.js';
import { eventually, startGateway, type TestGateway } from './test-support/start-gateway.js';

const TOKEN = 'hangup-token-0123456789';

/**
 * A client that hangs up is no fault of ours: each case is one info line `client closed
 * request` with status 499 and the request id, and no line at error level (nor a warning that
 * blames the upstream).
 */
let upstream: LocalServer;
let gateway: TestGateway;
let reached: () => void = () => {};

beforeAll(async () => {
  // The upstream answers a stream's first chunk, then never more; a plain request never.
  upstream = await startOpenAIUpstream((req, res) => {
    reached();
    if ((req.json as { stream?: boolean }).stream) {
      openSse(res);
      writeSse(res, chunkBody('m', { role: 'assistant', content: 'first' }));
    }
  });
  gateway = await startGateway({
    config: {
      defaultModel: 'mock/m',
      providers: { mock: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['m'] } },
      hooks: { support: { type: 'generic', token: TOKEN } },
    },
  });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

function upstreamReached(): Promise<void> {
  return new Promise((resolve) => {
    reached = resolve;
  });
}

/** The request's lines once its 'client closed request' line is written. */
async function linesOf(requestId: string) {
  await eventually(() => {
    if (!gateway.logs.some((l) => l.request_id === requestId && l.message === 'client closed request'))
      throw new Error('not yet');
  });
  return gateway.logs.filter((l) => l.request_id === requestId);
}

function expectOneInfoLine(lines: Record<string, unknown>[], requestId: string, path: string) {
  expect(lines).toEqual([
    expect.objectContaining({ level: 'info', message: 'client closed request', status: 499, request_id: requestId, path }),
  ]);
  expect(gateway.logs.filter((l) => l.level === 'error')).toEqual([]);
}

describe('a client that hangs up', () => {
  it('while waiting for a non-streaming answer is one info line, status 499', async () => {
    const controller = new AbortController();
    const arrived = upstreamReached();
    const pending = fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'hangup-plain' },
      body: JSON.stringify({ model: 'mock/m', messages: [{ role: 'user', content: 'wait' }] }),
      signal: controller.signal,
    }).catch(() => 'aborted');
    await arrived;
    controller.abort();
    expect(await pending).toBe('aborted');
    expectOneInfoLine(await linesOf('hangup-plain'), 'hangup-plain', '/v1/chat/completions');
  });

  it('in the middle of a stream is one info line, status 499, and no warning about the upstream', async () => {
    const controller = new AbortController();
    const res = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'hangup-stream' },
      body: JSON.stringify({ model: 'mock/m', stream: true, messages: [{ role: 'user', content: 'stream' }] }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toContain('first');
    controller.abort();
    const lines = await linesOf('hangup-stream');
    expectOneInfoLine(lines, 'hangup-stream', '/v1/chat/completions');
    expect(gateway.logs.filter((l) => l.level === 'warn')).toEqual([]);
  });

  it('in the middle of a hook body is one info line, status 499', async () => {
    const connection = await rawConnection(gateway.url);
    connection.socket.write(
      `POST /hooks/support HTTP/1.1\r\nHost: switchboard\r\nX-Request-Id: hangup-hook\r\nContent-Type: application/json\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Length: 100\r\n\r\n{"text":"half`,
    );
    await new Promise((resolve) => setTimeout(resolve, 100)); // the request has reached the route
    connection.socket.destroy();
    expectOneInfoLine(await linesOf('hangup-hook'), 'hangup-hook', '/hooks/support');
  });
});
