import {
  azureContentFilterBody,
  azureHandler,
  fakeEmbedding,
  type LocalServer,
  sendJson,
  startAzureUpstream,
} from '@switchboard/testing';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../test-support/start-gateway.js';

const KEY = 'azure-key-0123456789abcdef';
const VERSION = '2024-10-21';
const served = { apiKey: KEY, apiVersion: VERSION, deployments: ['prod-gpt4o', 'gpt-4o-mini', 'embed-small'] };
let azure: LocalServer;
let gateway: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  azure = await startAzureUpstream(served);
  gateway = await startGateway({
    config: {
      defaultModel: 'azure/gpt-4o',
      providers: {
        azure: {
          type: 'azure',
          baseUrl: azure.url,
          apiKey: KEY,
          models: ['gpt-4o', 'gpt-4o-mini', 'gpt-5'],
          embeddingModels: ['text-embedding-3-small'],
          deployments: { 'gpt-4o': 'prod-gpt4o', 'text-embedding-3-small': 'embed-small' },
          maxRetries: 0,
        },
        'azure-wrong-key': { type: 'azure', baseUrl: azure.url, apiKey: 'wrong-key-0123456789', models: ['gpt-4o-mini'] },
      },
    },
  });
  client = new OpenAI({ baseURL: gateway.baseURL, apiKey: 'not-needed', maxRetries: 0 });
});

afterEach(() => azure.handle(azureHandler(served)));

afterAll(async () => {
  await gateway?.close();
  await azure?.close();
});

const last = () => azure.requests.at(-1)!;

describe('Azure OpenAI provider', () => {
  it('calls the mapped deployment with api-key and api-version, and answers as any OpenAI model', async () => {
    const completion = await client.chat.completions.create({
      model: 'azure/gpt-4o',
      messages: [{ role: 'user', content: 'hi Azure' }],
    });
    expect(completion.choices[0]?.message.content).toBe('Upstream says: hi Azure');
    expect(completion.model).toBe('azure/gpt-4o');
    expect(last().url).toBe(`/openai/deployments/prod-gpt4o/chat/completions?api-version=${VERSION}`);
    expect(last().headers['api-key']).toBe(KEY);
    expect(last().headers.authorization).toBeUndefined();
  });

  it('uses the model name as the deployment when none is mapped, streaming too', async () => {
    const stream = await client.chat.completions.create({
      model: 'azure/gpt-4o-mini',
      messages: [{ role: 'user', content: 'stream it' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Upstream says: stream it');
    expect(last().url).toBe(`/openai/deployments/gpt-4o-mini/chat/completions?api-version=${VERSION}`);
  });

  it('serves embeddings and the Responses API through the deployment', async () => {
    const embedded = await client.embeddings.create({ model: 'azure/text-embedding-3-small', input: 'vector me' });
    expect(embedded.data[0]!.embedding).toEqual(fakeEmbedding('vector me').map((value) => expect.closeTo(value, 5)));
    expect(last().url).toBe(`/openai/deployments/embed-small/embeddings?api-version=${VERSION}`);

    const response = await client.responses.create({ model: 'azure/gpt-4o', input: 'respond' });
    expect(response.output_text).toBe('Upstream says: respond');
  });

  it('keeps a content-filtered prompt a 400 with code content_filter', async () => {
    azure.handle((_req, res) => sendJson(res, 400, azureContentFilterBody()));
    const error = await client.chat.completions
      .create({ model: 'azure/gpt-4o', messages: [{ role: 'user', content: 'bad words' }] })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ status: 400, code: 'content_filter', type: 'invalid_request_error' });
    expect((error as Error).message).toContain("Azure OpenAI's content management policy");
  });

  it('answers a missing deployment with 502 upstream_deployment_not_found', async () => {
    const res = await fetch(`${gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'azure/gpt-5', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(res.status).toBe(502);
    expect((await res.json()).error).toMatchObject({ type: 'upstream_error', code: 'upstream_deployment_not_found' });
  });

  it('answers a refused key with 502 upstream_auth_failed, and Azure’s 429 with its Retry-After', async () => {
    const refused = await fetch(`${gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'azure-wrong-key/gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(refused.status).toBe(502);
    const refusedError = (await refused.json()).error;
    expect(refusedError.code).toBe('upstream_auth_failed');
    expect(JSON.stringify(refusedError)).not.toContain('wrong-key-0123456789');

    azure.handle((_req, res) =>
      sendJson(
        res,
        429,
        { error: { code: '429', message: 'Requests to the ChatCompletions_Create Operation have exceeded token rate limit.' } },
        { 'retry-after': '42' },
      ),
    );
    const limited = await fetch(`${gateway.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'azure/gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('42');
    expect((await limited.json()).error.message).toContain('exceeded token rate limit');
  });
});
