import { loadSettings } from '@switchboard/config';
import type { ChatCompletionRequest } from '@switchboard/protocol';
import { completionBody, eventually, type LocalServer, sendJson, startOpenAIUpstream } from '@switchboard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from './create-gateway.js';
import type { Gateway } from './gateway.js';
import { configFile } from './test-support/config-file.js';

let upstream: LocalServer;
let gateway: Gateway;
const warnings: { message: string; meta: Record<string, unknown> }[] = [];
let open = 0;
let mostOpen = 0;
let release: () => void = () => {};
const held = new Promise<void>((resolve) => {
  release = resolve;
});

beforeAll(async () => {
  upstream = await startOpenAIUpstream(async (_req, res) => {
    mostOpen = Math.max(mostOpen, ++open);
    await held;
    open--;
    sendJson(res, 200, completionBody('m', 'done'));
  });
  const path = configFile({
    providers: { small: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['m'], maxConnections: 2 } },
  });
  gateway = createGateway(loadSettings({ SWITCHBOARD_CONFIG: path }), {
    log: { warn: (message, meta) => warnings.push({ message, meta }) },
  });
});

afterAll(async () => {
  release();
  await gateway?.registry.close();
  await upstream?.close();
});

describe('providers.<name>.maxConnections', () => {
  it('keeps at most that many connections to the upstream, queues the rest and warns once', async () => {
    const ask = () =>
      gateway.complete({ model: 'small/m', messages: [{ role: 'user', content: 'hi' }] } as ChatCompletionRequest, {
        signal: new AbortController().signal,
        requestId: 'pool',
      });
    const calls = Array.from({ length: 5 }, ask);
    await eventually(() => expect(upstream.requests).toHaveLength(2));
    expect(warnings).toEqual([
      {
        message: 'upstream connections exhausted: requests wait for a free one',
        meta: expect.objectContaining({ provider: 'small', max_connections: 2 }),
      },
    ]);

    release();
    const answers = await Promise.all(calls);
    expect(answers.map((a) => a.choices[0]?.message.content)).toEqual(Array(5).fill('done'));
    expect(mostOpen).toBe(2);
    expect(warnings).toHaveLength(1);
  });
});
