// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the config-file syntax under test
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.js';
import { loadSettings } from './settings.js';

const dir = mkdtempSync(join(tmpdir(), 'switchboard-config-'));
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('loadSettings', () => {
  it('works with no config at all: local/echo is the default model and defaults apply', () => {
    const settings = loadSettings({});
    expect(settings).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      redisUrl: 'redis://127.0.0.1:6379',
      redisPrefix: 'switchboard',
      logLevel: 'info',
      defaultModel: 'local/echo',
    });
    expect(settings.config.sessions).toEqual({ maxMessages: 20, ttlSeconds: 86400, activeWindowSeconds: 1800 });
  });

  it('reads a JSON config file and fills provider defaults', () => {
    const path = file(
      'ok.json',
      JSON.stringify({
        defaultModel: 'mock/gpt-4o-mini',
        providers: { mock: { type: 'openai', baseUrl: 'https://api.openai.com/v1', apiKey: 'sk-1234', models: ['gpt-4o-mini'] } },
      }),
    );
    const settings = loadSettings({ SWITCHBOARD_CONFIG: path });
    expect(settings.defaultModel).toBe('mock/gpt-4o-mini');
    expect(settings.config.providers.mock).toMatchObject({ timeoutMs: 60000, headers: {} });
    expect(settings.secrets).toEqual(['sk-1234']);
  });

  it('reads a YAML config file and replaces ${VAR} from the environment', () => {
    const path = file(
      'ok.yaml',
      'providers:\n  claude:\n    type: anthropic\n    baseUrl: ${ANTHROPIC_URL:-https://api.anthropic.com}\n    apiKey: ${CLAUDE_KEY}\n    models: [claude-sonnet-4-5]\n',
    );
    const settings = loadSettings({ SWITCHBOARD_CONFIG: path, CLAUDE_KEY: 'sk-ant-xyz' });
    expect(settings.config.providers.claude?.apiKey).toBe('sk-ant-xyz');
    expect(settings.config.providers.claude?.baseUrl).toBe('https://api.anthropic.com');
    expect(settings.defaultModel).toBe('claude/claude-sonnet-4-5');
  });

  it('stops with a message naming a missing environment variable', () => {
    const path = file(
      'missing.json',
      JSON.stringify({ providers: { p: { type: 'openai', baseUrl: 'http://x', apiKey: '${NOPE}', models: ['m'] } } }),
    );
    expect(() => loadSettings({ SWITCHBOARD_CONFIG: path })).toThrow(
      /providers\.p\.apiKey: environment variable NOPE is not set/,
    );
  });

  it.each([
    ['a bad provider type', { providers: { p: { type: 'grpc', baseUrl: 'http://x', models: ['m'] } } }, /providers\.p\.type/],
    [
      'a base URL that is not a URL',
      { providers: { p: { type: 'openai', baseUrl: 'nope', models: ['m'] } } },
      /providers\.p\.baseUrl/,
    ],
    ['an empty model list', { providers: { p: { type: 'openai', baseUrl: 'http://x', models: [] } } }, /providers\.p\.models/],
    ['a misspelt key', { providers: { p: { type: 'openai', baseURL: 'http://x', models: ['m'] } } }, /providers\.p\.baseURL/],
    ['an unknown top-level key', { provider: {} }, /'provider'/],
    ['a slash in a provider name', { providers: { 'a/b': { type: 'openai', baseUrl: 'http://x', models: ['m'] } } }, /providers/],
  ])('stops with a message naming the bad key for %s', (_name, config, pattern) => {
    const path = file(`bad-${Math.random()}.json`, JSON.stringify(config));
    expect(() => loadSettings({ SWITCHBOARD_CONFIG: path })).toThrow(ConfigError);
    expect(() => loadSettings({ SWITCHBOARD_CONFIG: path })).toThrow(pattern);
  });

  it('stops with a clear message for a file that is not valid JSON or cannot be read', () => {
    expect(() => loadSettings({ SWITCHBOARD_CONFIG: file('broken.json', '{"providers": ') })).toThrow(/not valid JSON/);
    expect(() => loadSettings({ SWITCHBOARD_CONFIG: join(dir, 'absent.json') })).toThrow(/cannot read/);
  });

  it('adds providers from OPENAI_* and ANTHROPIC_* shortcuts', () => {
    const settings = loadSettings({
      OPENAI_API_KEY: 'sk-openai',
      OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
      OPENAI_MODELS: 'llama3, qwen2',
      ANTHROPIC_API_KEY: 'sk-ant',
    });
    expect(settings.config.providers.openai).toMatchObject({
      type: 'openai',
      baseUrl: 'http://127.0.0.1:11434/v1',
      models: ['llama3', 'qwen2'],
    });
    expect(settings.config.providers.anthropic).toMatchObject({
      type: 'anthropic',
      baseUrl: 'https://api.anthropic.com',
      apiKey: 'sk-ant',
    });
    expect(settings.defaultModel).toBe('openai/llama3');
    expect(settings.secrets.sort()).toEqual(['sk-ant', 'sk-openai']);
  });

  it('refuses an empty config file, naming the file', () => {
    for (const [name, text] of [
      ['empty.yaml', ''],
      ['comments.yaml', '# nothing here yet\n'],
      ['blank.json', '  \n'],
    ] as const) {
      const path = file(name, text);
      expect(() => loadSettings({ SWITCHBOARD_CONFIG: path })).toThrow(ConfigError);
      expect(() => loadSettings({ SWITCHBOARD_CONFIG: path })).toThrow(`${path}: the file is empty`);
    }
  });

  it('takes the providers from the config file alone, and warns about shortcut variables it does not name', () => {
    const path = file(
      'own.yaml',
      'providers:\n  mock:\n    type: openai\n    baseUrl: http://127.0.0.1:9/v1\n    models: [gpt-4o-mini]\n',
    );
    const settings = loadSettings({ SWITCHBOARD_CONFIG: path, OPENAI_API_KEY: 'sk-openai', ANTHROPIC_API_KEY: 'sk-ant' });
    expect(Object.keys(settings.config.providers)).toEqual(['mock']);
    expect(settings.warnings).toHaveLength(2);
    expect(settings.warnings[0]).toMatch(/^OPENAI_API_KEY is set but not used/);
    expect(settings.warnings.join(' ')).not.toContain('sk-');
  });

  it('does not warn about a shortcut variable the config file names', () => {
    const path = file(
      'named.yaml',
      'providers:\n  openai:\n    type: openai\n    baseUrl: https://api.openai.com/v1\n    apiKey: ${OPENAI_API_KEY}\n    models: [gpt-4o-mini]\n',
    );
    const settings = loadSettings({ SWITCHBOARD_CONFIG: path, OPENAI_API_KEY: 'sk-openai' });
    expect(settings.config.providers.openai?.apiKey).toBe('sk-openai');
    expect(settings.warnings).toEqual([]);
  });

  it('reads an empty apiKey (an unset ${VAR:-}) as no key', () => {
    const path = file(
      'keyless.yaml',
      'providers:\n  claude:\n    type: anthropic\n    baseUrl: https://api.anthropic.com\n    apiKey: ${ANTHROPIC_API_KEY:-}\n    models: [claude-sonnet-4-5]\n',
    );
    const settings = loadSettings({ SWITCHBOARD_CONFIG: path });
    expect(settings.config.providers.claude?.apiKey).toBe('');
    expect(settings.secrets).toEqual([]);
  });

  it('refuses a headers time-out longer than the body time-out, naming the key', () => {
    const path = file('timeouts.json', JSON.stringify({ limits: { headersTimeoutMs: 20_000, bodyTimeoutMs: 5_000 } }));
    expect(() => loadSettings({ SWITCHBOARD_CONFIG: path })).toThrow(
      /limits\.headersTimeoutMs: headersTimeoutMs must not be longer/,
    );
  });

  it('rejects a bad PORT or LOG_LEVEL', () => {
    expect(() => loadSettings({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadSettings({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
  });
});
