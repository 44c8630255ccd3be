import { getEventListeners } from 'node:events';
import { loadSettings } from '@switchboard/config';
import type { ChatCompletionRequest } from '@switchboard/protocol';
import { chunkBody, completionBody, type LocalServer, openSse, sendJson, startOpenAIUpstream } from '@switchboard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from './create-gateway.js';
import type { Gateway } from './gateway.js';
import { configFile } from './test-support/config-file.js';

let upstream: LocalServer;
let gateway: Gateway;

beforeAll(async () => {
  // The request body decides: a streamed call gets two chunks, a whole one an answer.
  upstream = await startOpenAIUpstream((req, res) => {
    if (!(JSON.parse(req.body) as { stream?: boolean }).stream) return sendJson(res, 200, completionBody('m', 'done'));
    openSse(res);
    res.write(`data: ${JSON.stringify(chunkBody('m', { content: 'do' }))}\n\n`);
    res.end(`data: ${JSON.stringify(chunkBody('m', { content: 'ne' }, 'stop'))}\n\ndata: [DONE]\n\n`);
  });
  const path = configFile({ providers: { up: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['m'] } } });
  gateway = createGateway(loadSettings({ SWITCHBOARD_CONFIG: path }));
});

afterAll(async () => {
  await gateway?.registry.close();
  await upstream?.close();
});

describe('upstream calls one after another under one signal (a tool loop)', () => {
  it('leave no abort listener behind on that signal once each answer is read', async () => {
    const signal = new AbortController().signal;
    const request = { model: 'up/m', messages: [{ role: 'user', content: 'hi' }] } as ChatCompletionRequest;
    for (let i = 0; i < 12; i++) {
      const answer = await gateway.complete(request, { signal, requestId: `loop-${i}` });
      expect(answer.choices[0]?.message.content).toBe('done');
      let text = '';
      const stream = await gateway.stream({ ...request, stream: true }, { signal, requestId: `loop-s${i}` });
      for await (const chunk of stream.chunks) text += chunk.choices[0]?.delta?.content ?? '';
      expect(text).toBe('done');
    }
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });
});
