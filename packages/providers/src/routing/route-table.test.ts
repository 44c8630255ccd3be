import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadSettings, type RoutesConfig } from '@switchboard/config';
import { describe, expect, it } from 'vitest';
import { createRegistry } from '../registry.js';
import { RouteTable } from './route-table.js';

/** A registry over two providers; no request is ever sent (nothing here calls an upstream). */
function table(routes: RoutesConfig, fallbacks: Record<string, string[]> = {}, defaultModel = 'a/gpt') {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-routes-'));
  const path = join(dir, 'config.json');
  writeFileSync(
    path,
    JSON.stringify({
      defaultModel,
      providers: {
        a: { type: 'openai', baseUrl: 'http://127.0.0.1:9/v1', models: ['gpt', 'mini'], embeddingModels: ['embed'] },
        b: { type: 'openai', baseUrl: 'http://127.0.0.1:9/v1', models: ['gpt'], embeddingModels: ['embed'] },
      },
    }),
  );
  const registry = createRegistry(loadSettings({ SWITCHBOARD_CONFIG: path }));
  return new RouteTable(registry, routes, fallbacks);
}
const route = (...models: string[]) => models.map((model) => ({ model, weight: 1 }));

describe('RouteTable', () => {
  it('resolves a route to its deployments, a model id to itself, default to the defaultModel', () => {
    const t = table({
      gpt: [
        { model: 'a/gpt', weight: 2 },
        { model: 'b/gpt', weight: 1 },
      ],
    });
    expect(t.target('gpt', 'chat').members.map((m) => [m.model.id, m.weight])).toEqual([
      ['a/gpt', 2],
      ['b/gpt', 1],
    ]);
    expect(t.target('a/mini', 'chat').members.map((m) => m.model.id)).toEqual(['a/mini']);
    expect(t.target('default', 'chat').name).toBe('a/gpt');
    expect(t.routesOf('b/gpt')).toEqual(['gpt']);
  });

  it('lets defaultModel and fallbacks name routes', () => {
    const t = table({ gpt: route('a/gpt', 'b/gpt') }, { 'a/mini': ['gpt'] }, 'gpt');
    expect(t.target('default', 'chat').name).toBe('gpt');
    expect(t.plan('a/mini', 'chat').targets.map((target) => target.name)).toEqual(['a/mini', 'gpt']);
  });

  it('resolves a name once and keeps its plan, but never keeps a name that failed', () => {
    const t = table({ gpt: route('a/gpt', 'b/gpt') }, { 'a/mini': ['gpt'] });
    const plan = t.plan('a/mini', 'chat');
    expect(plan).toMatchObject({ name: 'a/mini', kind: 'chat' });
    expect(t.plan('a/mini', 'chat')).toBe(plan);
    expect(t.plan('default', 'chat').name).toBe(t.target('default', 'chat').name);
    for (let i = 0; i < 2; i++) {
      expect(() => t.plan('nobody/serves-this', 'chat')).toThrow(expect.objectContaining({ status: 404 }));
    }
    expect(() => t.plan('gpt', 'embedding')).toThrow(expect.objectContaining({ code: 'model_not_supported' }));
  });

  it('serves embedding routes on the embeddings endpoint only', () => {
    const t = table({ vectors: route('a/embed', 'b/embed') });
    expect(t.target('vectors', 'embedding').members).toHaveLength(2);
    expect(() => t.target('vectors', 'chat')).toThrow(expect.objectContaining({ status: 400, code: 'model_not_supported' }));
  });

  it.each([
    ['a model nobody serves', { gpt: route('a/gpt', 'c/gpt') }, /routes\.gpt\[1\]\.model/],
    ['a route inside a route', { one: route('a/gpt'), two: route('one') }, /routes\.two\[0\]\.model: 'one' is a route/],
    ['the name of a served model', { 'a/gpt': route('b/gpt') }, /a route cannot take the name of a served model/],
    ['the name default', { default: route('a/gpt') }, /routes\.default/],
    ['a deployment listed twice', { gpt: route('a/gpt', 'a/gpt') }, /listed twice/],
    ['chat and embedding models together', { mixed: route('a/gpt', 'a/embed') }, /mixes kinds of model/],
  ])('stops at start-up with the key that is wrong for %s', (_name, routes, message) => {
    expect(() => table(routes)).toThrow(ConfigError);
    expect(() => table(routes)).toThrow(message);
  });

  it('stops at start-up for a fallback or defaultModel nobody serves', () => {
    expect(() => table({}, { 'a/gpt': ['c/gpt'] })).toThrow(/fallbacks\.a\/gpt\[0\]/);
    expect(() => table({}, {}, 'nobody')).toThrow(/defaultModel/);
  });
});
