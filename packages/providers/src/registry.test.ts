import { ConfigError, loadSettings } from '@switchboard/config';
import { AppError } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { createGateway } from './create-gateway.js';
import { createRegistry } from './registry.js';
import { configFile } from './test-support/config-file.js';

const provider = (models: string[]) => ({ type: 'openai', baseUrl: 'http://127.0.0.1:9/v1', models });
const settings = (config: Record<string, unknown>) => loadSettings({ SWITCHBOARD_CONFIG: configFile(config) });

function thrown(build: () => unknown): unknown {
  try {
    build();
  } catch (err) {
    return err;
  }
  throw new Error('nothing was thrown');
}

describe('the model table', () => {
  it('answers a bare name two providers serve with 400 ambiguous_model naming both', async () => {
    const registry = createRegistry(
      settings({ providers: { a: provider(['gpt-4o-mini']), b: provider(['gpt-4o-mini', 'o1']) } }),
    );
    const err = thrown(() => registry.resolve('gpt-4o-mini'));
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ status: 400, code: 'ambiguous_model', param: 'model' });
    expect((err as Error).message).toContain('a/gpt-4o-mini, b/gpt-4o-mini');
    expect(registry.resolve('o1').id).toBe('b/o1');
    expect(registry.resolve('a/gpt-4o-mini').id).toBe('a/gpt-4o-mini');
    await registry.close();
  });

  it('refuses a defaultModel nobody serves with a ConfigError naming the key', () => {
    const err = thrown(() => createGateway(settings({ defaultModel: 'a/nope', providers: { a: provider(['m']) } })));
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(
      /^defaultModel: 'a\/nope' is not served by any configured provider \(served: local\/echo, a\/m\)/,
    );
  });

  it('refuses a fallback nobody serves with a ConfigError naming the entry', () => {
    const config = { providers: { a: provider(['m']) }, fallbacks: { 'a/m': ['local/echo', 'b/m'] } };
    const err = thrown(() => createGateway(settings(config)));
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(/^fallbacks\.a\/m\[1\]: The model 'b\/m' does not exist/);
  });

  it('refuses a fallbacks key nobody serves with a ConfigError naming it', () => {
    const err = thrown(() => createGateway(settings({ fallbacks: { 'x/y': ['local/echo'] } })));
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(/^fallbacks\.x\/y: /);
  });
});
