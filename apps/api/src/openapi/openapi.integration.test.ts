import { compileErrors, dereference, validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appRouter } from '../app.js';
import { createDeps } from '../deps.js';
import { BULL_BOARD_PATH } from '../routes/bull-board.js';
import { startGateway, type TestGateway } from '../test-support/start-gateway.js';

/** koa-router's `/hooks/:name/jobs/:id` and `/v1/models/*id` as OpenAPI writes them. */
const openApiPath = (path: string) => path.replace(/[:*](\w+)/g, '{$1}');

describe('GET /openapi.json', () => {
  let gateway: TestGateway;
  // biome-ignore lint/suspicious/noExplicitAny: a parsed OpenAPI document, walked by path in the assertions
  let document: Record<string, any>;

  beforeAll(async () => {
    gateway = await startGateway({
      config: {
        hooks: { ops: { type: 'generic', token: 'openapi-hook-token-0123' } },
        adminKeys: ['openapi-admin-key-0123456789'],
      },
    });
    const res = await fetch(`${gateway.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    document = await res.json();
  });
  afterAll(async () => {
    await gateway?.close();
  });

  it('is a valid OpenAPI 3.1 document whose every $ref resolves', async () => {
    expect(document.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(document) as Parameters<typeof validate>[0]);
    expect(result.valid ? '' : compileErrors(result)).toBe('');
    await expect(dereference(structuredClone(document) as Parameters<typeof dereference>[0])).resolves.toBeTruthy();
  });

  it('lists every route the API serves, with its methods, and nothing it does not serve', () => {
    const deps = createDeps(gateway.settings);
    try {
      const served = new Set<string>([`get ${BULL_BOARD_PATH}`]);
      for (const layer of appRouter(deps).stack) {
        for (const method of layer.methods)
          if (method !== 'HEAD') served.add(`${method.toLowerCase()} ${openApiPath(String(layer.path))}`);
      }
      const documented = new Set<string>();
      for (const [path, operations] of Object.entries(document.paths as Record<string, object>)) {
        for (const method of Object.keys(operations)) documented.add(`${method} ${path}`);
      }
      expect([...served].sort()).toEqual([...documented].sort());
      for (const path of [
        '/v1/chat/completions',
        '/v1/responses',
        '/v1/embeddings',
        '/v1/audio/transcriptions',
        '/v1/models',
        '/hooks/{name}',
        '/status',
        '/admin/jobs',
      ]) {
        expect(document.paths).toHaveProperty([path]);
      }
    } finally {
      void deps.close();
    }
  });

  it('describes request bodies and queries with the schemas the routes validate with', async () => {
    const chat = document.components.schemas.ChatCompletionRequest;
    expect(chat.required).toEqual(['messages']); // model is optional: the defaultModel answers
    expect(chat.properties).toHaveProperty('model');
    const hook = document.components.schemas.GenericHookMessage;
    expect(hook.required).toEqual(['from']);
    expect(hook.properties.action.enum).toEqual(['chat', 'reset']);
    const list = document.paths['/admin/jobs'].get.parameters;
    const state = list.find((p: { name: string }) => p.name === 'state');
    expect(state).toMatchObject({
      in: 'query',
      required: false,
      schema: { enum: ['failed', 'completed', 'active', 'waiting', 'delayed'] },
    });
    // What the document says the route refuses, the route refuses.
    const res = await fetch(`${gateway.url}/admin/jobs?state=stuck`, {
      headers: { authorization: 'Bearer openapi-admin-key-0123456789' },
    });
    expect(res.status).toBe(400);
    expect(document.paths['/admin/jobs/{id}/retry'].post.security).toEqual([{ adminKey: [] }]);
    expect(document.paths['/v1/chat/completions'].post.requestBody.content['application/json'].schema.$ref).toBe(
      '#/components/schemas/ChatCompletionRequest',
    );
  });
});
