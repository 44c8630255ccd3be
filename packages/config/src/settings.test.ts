// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the config-file syntax under test
import { mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
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
      apiProcesses: 1,
    });
    expect(settings.config.sessions).toEqual({ maxMessages: 20, ttlSeconds: 86400, activeWindowSeconds: 1800 });
  });

  it('reads API_PROCESSES as a number or auto (one per core), and stops on anything else', () => {
    expect(loadSettings({ API_PROCESSES: '3' }).apiProcesses).toBe(3);
    expect(loadSettings({ API_PROCESSES: 'auto' }).apiProcesses).toBe(availableParallelism());
    for (const bad of ['0', '1.5', 'many', '65']) {
      expect(() => loadSettings({ API_PROCESSES: bad })).toThrow(ConfigError);
      expect(() => loadSettings({ API_PROCESSES: bad })).toThrow(/^API_PROCESSES: /);
    }
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
    [
      'a worker shard the deployment does not have',
      { redis: { shards: 4 }, worker: { shards: [1, 4] } },
      /worker\.shards\.1: there is no shard 4/,
    ],
    ['a shard count of 0', { redis: { shards: 0 } }, /redis\.shards/],
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

  it("reads an API key's budget as the object hooks take, and the old flat keys onto it with one deprecation line each", () => {
    const budget = { tokensPerDay: 1000, costPerMonth: 5 };
    const current = loadSettings({
      SWITCHBOARD_CONFIG: file('budget.json', JSON.stringify({ apiKeys: [{ key: 'sk-budget-0000', budget }] })),
    });
    expect(current.config.apiKeys).toEqual([{ key: 'sk-budget-0000', budget }]);
    expect(current.warnings).toEqual([]);

    const flat = { key: 'sk-flat-00000', name: 'team-a', tokensPerDay: 1000 };
    const old = loadSettings({
      SWITCHBOARD_CONFIG: file(
        'flat.json',
        JSON.stringify({ apiKeys: ['sk-plain-0000', flat, { key: 'sk-cost-0000', costPerMonth: 5 }] }),
      ),
    });
    expect(old.config.apiKeys).toEqual([
      'sk-plain-0000',
      { key: 'sk-flat-00000', name: 'team-a', budget: { tokensPerDay: 1000 } },
      { key: 'sk-cost-0000', budget: { costPerMonth: 5 } },
    ]);
    expect(old.warnings).toEqual([
      'apiKeys[1].tokensPerDay is deprecated: write apiKeys[1].budget.tokensPerDay (the budget object hooks take)',
      'apiKeys[2].costPerMonth is deprecated: write apiKeys[2].budget.costPerMonth (the budget object hooks take)',
    ]);
    expect(old.warnings.join(' ')).not.toContain('sk-');
  });

  it('refuses an API key that sets both its budget and an old flat budget key, naming the key', () => {
    const path = file(
      'both.json',
      JSON.stringify({ apiKeys: [{ key: 'sk-both-0000', budget: { costPerMonth: 5 }, tokensPerDay: 9 }] }),
    );
    expect(() => loadSettings({ SWITCHBOARD_CONFIG: path })).toThrow(ConfigError);
    expect(() => loadSettings({ SWITCHBOARD_CONFIG: path })).toThrow(/apiKeys\.0\.tokensPerDay: set budget\.tokensPerDay/);
  });

  it('refuses an API key budget with neither limit, as a hook budget is refused', () => {
    const path = file('empty-budget.json', JSON.stringify({ apiKeys: [{ key: 'sk-empty-0000', budget: {} }] }));
    expect(() => loadSettings({ SWITCHBOARD_CONFIG: path })).toThrow(
      /apiKeys\.0\.budget: set tokensPerDay, costPerMonth or both/,
    );
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

  it('reads an azure provider from its resource name or its baseUrl, with api-version and deployments', () => {
    const azure = { type: 'azure', apiKey: 'azure-key-123', models: ['gpt-4o'], deployments: { 'gpt-4o': 'prod' } };
    const byResource = loadSettings({
      SWITCHBOARD_CONFIG: file('azure1.json', JSON.stringify({ providers: { az: { ...azure, resource: 'my-res' } } })),
    });
    expect(byResource.config.providers.az).toMatchObject({
      baseUrl: 'https://my-res.openai.azure.com',
      apiVersion: '2024-10-21',
      deployments: { 'gpt-4o': 'prod' },
    });
    const byUrl = loadSettings({
      SWITCHBOARD_CONFIG: file(
        'azure2.json',
        JSON.stringify({ providers: { az: { ...azure, baseUrl: 'http://127.0.0.1:9', apiVersion: '2025-01-01' } } }),
      ),
    });
    expect(byUrl.config.providers.az).toMatchObject({ baseUrl: 'http://127.0.0.1:9', apiVersion: '2025-01-01' });
  });

  it('reads routes (entries as objects or bare model ids), cooldown and an opt-in cache with their defaults', () => {
    const path = file(
      'routes.json',
      JSON.stringify({
        providers: { p: { type: 'openai', baseUrl: 'http://x', models: ['m'], embeddingModels: ['e'] } },
        routes: { fast: [{ model: 'p/m', weight: 2 }, 'q/m'] },
        cache: {},
      }),
    );
    const { config } = loadSettings({ SWITCHBOARD_CONFIG: path });
    expect(config.routes.fast).toEqual([
      { model: 'p/m', weight: 2 },
      { model: 'q/m', weight: 1 },
    ]);
    expect(config.cooldown).toEqual({ defaultMs: 30_000, maxMs: 300_000 });
    expect(config.cache).toEqual({
      ttlSeconds: 3600,
      policy: 'temperature-zero',
      shareAcrossKeys: false,
      maxEntryBytes: 1_048_576,
    });
    expect(loadSettings({}).config.cache).toBeUndefined();
  });

  it.each([
    ['an azure provider with neither resource nor baseUrl', { type: 'azure', models: ['m'] }, /providers\.p\.baseUrl/],
    [
      'an azure provider with both',
      { type: 'azure', resource: 'r', baseUrl: 'http://x', models: ['m'] },
      /providers\.p\.baseUrl/,
    ],
    [
      'a resource on an openai provider',
      { type: 'openai', resource: 'r', baseUrl: 'http://x', models: ['m'] },
      /providers\.p\.resource/,
    ],
    [
      'embedding models on anthropic',
      { type: 'anthropic', baseUrl: 'http://x', models: ['m'], embeddingModels: ['e'] },
      /embeddingModels/,
    ],
    ['a model in both lists', { type: 'openai', baseUrl: 'http://x', models: ['m'], embeddingModels: ['m'] }, /embeddingModels/],
    [
      'audio models on anthropic (no transcription API)',
      { type: 'anthropic', baseUrl: 'http://x', models: ['m'], audioModels: ['whisper-1'] },
      /audioModels: only openai providers serve transcriptions/,
    ],
    ['a model both chat and audio', { type: 'openai', baseUrl: 'http://x', models: ['m'], audioModels: ['m'] }, /audioModels/],
    [
      'a deployment for a model not listed',
      { type: 'azure', resource: 'r', models: ['m'], deployments: { n: 'd' } },
      /deployments/,
    ],
  ])('stops with a message naming the key for %s', (_name, provider, pattern) => {
    const path = file(`bad-provider-${Math.random()}.json`, JSON.stringify({ providers: { p: provider } }));
    expect(() => loadSettings({ SWITCHBOARD_CONFIG: path })).toThrow(pattern);
  });

  it('serves a provider with only embedding models', () => {
    const path = file(
      'embed-only.json',
      JSON.stringify({ providers: { p: { type: 'openai', baseUrl: 'http://x', embeddingModels: ['e'] } } }),
    );
    const settings = loadSettings({ SWITCHBOARD_CONFIG: path });
    expect(settings.config.providers.p?.models).toEqual([]);
    expect(settings.defaultModel).toBe('local/echo');
  });

  it("reads a hook's approvers (default: none listed, so the person who asked decides) and refuses an empty id", () => {
    const hook = { type: 'telegram', botToken: '110201543:AAHdqTcvCH1v', secretToken: 'secret' };
    const read = (extra: Record<string, unknown>) =>
      loadSettings({ SWITCHBOARD_CONFIG: file('approvers.json', JSON.stringify({ hooks: { tg: { ...hook, ...extra } } })) });
    expect(read({}).config.hooks.tg?.approvers).toEqual([]);
    expect(read({ approvers: ['12345', '678'] }).config.hooks.tg?.approvers).toEqual(['12345', '678']);
    expect(() => read({ approvers: [''] })).toThrow(/hooks\.tg\.approvers\.0/);
  });

  it('loads config/switchboard.example.yaml as shipped', () => {
    const example = new URL('../../../config/switchboard.example.yaml', import.meta.url).pathname;
    const settings = loadSettings({
      SWITCHBOARD_CONFIG: example,
      OPENAI_API_KEY: 'sk-example',
      ANTHROPIC_API_KEY: 'sk-ant-example',
      SUPPORT_HOOK_TOKEN: 'support-token-123',
    });
    expect(settings.config.routes.fast).toHaveLength(2);
    expect(settings.config.cache?.ttlSeconds).toBe(3600);
  });
});
