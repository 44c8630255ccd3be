import { loadSettings } from '@switchboard/config';
import { AppError, type ChatCompletionRequest } from '@switchboard/protocol';
import {
  chunkBody,
  completionBody,
  type LocalServer,
  openSse,
  sendJson,
  startOpenAIUpstream,
  writeSse,
} from '@switchboard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from './create-gateway.js';
import type { Gateway } from './gateway.js';
import { configFile } from './test-support/config-file.js';

/**
 * `timeoutMs` below a second: undici's own time-outs tick about once a second, so a 300 ms
 * time-out used to fire after about a second and a 800 ms silence went unnoticed. The upstream
 * here always answers — after 800 ms — so only a time-out that fires on time turns it into a 504.
 */
const LATE_MS = 800;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let upstream: LocalServer;
let gateway: Gateway;
const ctx = () => ({ signal: new AbortController().signal, requestId: 'timeouts' });
const request = (stream: boolean): ChatCompletionRequest =>
  ({ model: 'slow/m', stream, messages: [{ role: 'user', content: 'hi' }] }) as ChatCompletionRequest;

beforeAll(async () => {
  upstream = await startOpenAIUpstream();
  const path = configFile({
    providers: { slow: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['m'], timeoutMs: 300, maxRetries: 0 } },
  });
  gateway = createGateway(loadSettings({ SWITCHBOARD_CONFIG: path }));
});

afterAll(async () => {
  await gateway?.registry.close();
  await upstream?.close();
});

async function failure(call: Promise<unknown>): Promise<AppError> {
  const err = await call.then(
    () => new Error('the call succeeded'),
    (e: unknown) => e,
  );
  if (!(err instanceof AppError)) throw err;
  return err;
}

describe('a 300 ms timeoutMs', () => {
  it('answers 504 upstream_timeout when the response headers come 800 ms late', async () => {
    upstream.handle(async (_req, res) => {
      await sleep(LATE_MS);
      sendJson(res, 200, completionBody('m', 'too late'));
    });
    const err = await failure(gateway.complete(request(false), ctx()));
    expect({ status: err.status, code: err.code }).toEqual({ status: 504, code: 'upstream_timeout' });
  });

  it('answers 504 upstream_timeout when a JSON body stalls for 800 ms after its headers', async () => {
    upstream.handle(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":"chatcmpl-1",');
      await sleep(LATE_MS);
      res.end('"object":"chat.completion","created":1,"model":"m","choices":[]}');
    });
    const err = await failure(gateway.complete(request(false), ctx()));
    expect({ status: err.status, code: err.code }).toEqual({ status: 504, code: 'upstream_timeout' });
  });

  it('ends a stream with upstream_timeout when 800 ms pass between two chunks', async () => {
    upstream.handle(async (_req, res) => {
      openSse(res);
      writeSse(res, chunkBody('m', { role: 'assistant', content: 'first' }));
      await sleep(LATE_MS);
      writeSse(res, chunkBody('m', { content: 'second' }, 'stop'));
      writeSse(res, '[DONE]');
      res.end();
    });
    const stream = await gateway.stream(request(true), ctx());
    const seen: string[] = [];
    const err = await failure(
      (async () => {
        for await (const chunk of stream.chunks) seen.push(String(chunk.choices[0]?.delta.content ?? ''));
      })(),
    );
    expect(seen).toEqual(['first']);
    expect({ status: err.status, code: err.code }).toEqual({ status: 504, code: 'upstream_timeout' });
  });

  it('lets a stream whose chunks each come within the time-out run to its end', async () => {
    upstream.handle(async (_req, res) => {
      openSse(res);
      for (const word of ['a', 'b', 'c', 'd']) {
        writeSse(res, chunkBody('m', { content: word }));
        await sleep(100);
      }
      writeSse(res, chunkBody('m', {}, 'stop'));
      writeSse(res, '[DONE]');
      res.end();
    });
    const stream = await gateway.stream(request(true), ctx());
    let text = '';
    for await (const chunk of stream.chunks) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('abcd');
  });
});
