import { once } from 'node:events';
import { request } from 'node:http';
import { chunkBody, type LocalServer, openSse, startOpenAIUpstream } from '@switchboard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startGateway, type TestGateway } from './test-support/start-gateway.js';

/** 8,000 chunks of 4 KiB: 32 MiB, far more than the sockets between the three can hold. */
const CHUNKS = 8_000;
const piece = (i: number) => `${String(i).padStart(6, '0')}${'x'.repeat(4090)}`;

let upstream: LocalServer;
let gateway: TestGateway;
/** What the upstream has written, and whether a write of its has had to wait for the gateway. */
const sent = { chunks: 0, blocked: false, done: false };

beforeAll(async () => {
  upstream = await startOpenAIUpstream(async (_req, res) => {
    openSse(res);
    for (let i = 0; i < CHUNKS; i++) {
      sent.chunks = i + 1;
      if (!res.write(`data: ${JSON.stringify(chunkBody('m', { content: piece(i) }))}\n\n`)) {
        sent.blocked = true;
        await new Promise<void>((resolve) => {
          const done = () => resolve(void res.off('drain', done).off('close', done));
          res.on('drain', done).on('close', done);
        });
        if (res.destroyed) return;
      }
    }
    res.write(`data: ${JSON.stringify(chunkBody('m', {}, 'stop'))}\n\ndata: [DONE]\n\n`);
    res.end();
    sent.done = true;
  });
  gateway = await startGateway({
    config: {
      defaultModel: 'mock/m',
      providers: { mock: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['m'], timeoutMs: 2_000 } },
    },
  });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

describe('a stream to a client that reads slowly', () => {
  it('holds the upstream back instead of buffering it, then delivers every chunk in order once the client reads', async () => {
    const body = JSON.stringify({ model: 'mock/m', stream: true, messages: [{ role: 'user', content: 'a long one' }] });
    const req = request(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    req.end(body);
    const [res] = (await once(req, 'response')) as [import('node:http').IncomingMessage];
    expect(res.statusCode).toBe(200);
    res.pause(); // the client stops reading

    // The upstream finds its writes waiting: the gateway stopped reading it, rather than keep the
    // stream in memory. Past the upstream's 2 s time-out too: a client's slowness is not silence.
    await eventually(() => expect(sent.blocked).toBe(true), 500);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(sent.done).toBe(false);
    expect(sent.chunks).toBeLessThan(CHUNKS);

    res.setEncoding('utf8');
    let text = '';
    res.on('data', (part: string) => {
      text += part;
    });
    res.resume();
    await once(res, 'end');
    const frames = text.split('\n\n').filter(Boolean);
    expect(frames.at(-1)).toBe('data: [DONE]');
    const contents = frames
      .slice(0, -1)
      .map((frame) => JSON.parse(frame.slice('data: '.length)) as { choices: { delta: { content?: string } }[] })
      .map((chunk) => chunk.choices[0]?.delta.content)
      .filter((content) => content);
    expect(contents).toHaveLength(CHUNKS);
    expect(contents.every((content, i) => content === piece(i))).toBe(true);
  }, 30_000);
});
