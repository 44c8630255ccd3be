// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} is the config-file syntax under test
import { freePort, MCP_STDIO_SERVER } from '@switchboard/testing';
import { describe, expect, it } from 'vitest';
import { configFile } from './test-support/config-file.js';
import { type SpawnedProcess, spawnApiProcess, spawnLoggingWorkerProcess } from './test-support/spawn-process.js';

/** Both programs, as an operator runs them: options, and what a bad configuration does to them. */
const programs = [
  ['the API', spawnApiProcess],
  ['the worker', spawnLoggingWorkerProcess],
] as const;

/** Where nothing listens: a process that got past its configuration would fail to reach Redis, not exit 78. */
const deadRedis = async () => `redis://127.0.0.1:${await freePort()}`;
/**
 * A bound on a hang (a process that neither exits nor stops), not on speed: on this 2-core machine
 * under other work, starting a process that loads the app took 15–28 s of wall (load 14–20).
 */
const EXIT_WITHIN_MS = 60_000;
/** A test runs up to two processes one after the other. */
const TEST_TIMEOUT = { timeout: 2 * EXIT_WITHIN_MS + 10_000 };

async function run(
  spawn: (env: Record<string, string>, args?: string[]) => SpawnedProcess,
  env: Record<string, string>,
  args: string[] = [],
) {
  const proc = spawn({ REDIS_URL: await deadRedis(), PORT: String(await freePort()), ...env }, args);
  const code = await proc.exitsWithin(EXIT_WITHIN_MS);
  return { code, output: proc.output.join('\n') };
}

const provider = { type: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-check-secret-0123456789', models: ['m'] };

describe.each(programs)('%s', TEST_TIMEOUT, (_name, spawn) => {
  it('exits 78 naming defaultModel when it names a model no provider serves', async () => {
    const path = configFile({ defaultModel: 'mock/nope', providers: { mock: provider } });
    const { code, output } = await run(spawn, { SWITCHBOARD_CONFIG: path });
    expect(code, output).toBe(78);
    expect(output).toContain(
      "switchboard: configuration error: defaultModel: 'mock/nope' is not served by any configured provider",
    );
  });

  it('exits 78 naming the fallbacks entry that no provider serves', async () => {
    const path = configFile({ providers: { mock: provider }, fallbacks: { 'mock/m': ['ghost/m'] } });
    const { code, output } = await run(spawn, { SWITCHBOARD_CONFIG: path });
    expect(code, output).toBe(78);
    expect(output).toContain('configuration error: fallbacks.mock/m[0]:');
  });

  it('exits 78 naming an empty config file', async () => {
    const path = configFile('', 'switchboard.yaml');
    const { code, output } = await run(spawn, { SWITCHBOARD_CONFIG: path });
    expect(code, output).toBe(78);
    expect(output).toContain(`configuration error: ${path}: the file is empty`);
  });

  it('answers --help and --version with exit code 0', async () => {
    const help = await run(spawn, {}, ['--help']);
    expect(help.code).toBe(0);
    expect(help.output).toMatch(/^Usage: node apps\/(api|worker)\/dist\/main\.js \[--check \| --help \| --version\]/);
    const version = await run(spawn, {}, ['--version']);
    expect({ code: version.code, output: version.output }).toEqual({ code: 0, output: '0.1.0' });
  });

  it('refuses an option it does not know with exit code 64 and the usage', async () => {
    const { code, output } = await run(spawn, {}, ['--frobnicate']);
    expect(code, output).toBe(64);
    expect(output).toContain("Unknown option '--frobnicate'");
    expect(output).toContain('Usage:');
  });
});

describe('at start', TEST_TIMEOUT, () => {
  it.each(programs)(
    '%s logs the effective providers, keys masked, and warns about an unused shortcut variable',
    async (_name, spawn) => {
      const path = configFile({ providers: { mock: provider } });
      const proc = spawn({
        REDIS_URL: await deadRedis(),
        PORT: String(await freePort()),
        SWITCHBOARD_CONFIG: path,
        OPENAI_API_KEY: 'sk-unused-0123456789',
        LOG_LEVEL: 'info',
      });
      try {
        await proc.waitForOutput('"message":"configuration"');
        await proc.waitForOutput('"message":"providers"');
        const providers = proc.logLines().find((line) => line.message === 'providers');
        expect(providers).toMatchObject({
          default_model: 'mock/m',
          providers: [
            { name: 'local', type: 'built-in', models: ['echo'] },
            { name: 'mock', type: 'openai', baseUrl: 'http://127.0.0.1:9/v1', models: ['m'], key: 'set' },
          ],
        });
        expect(proc.logLines().find((line) => line.message === 'configuration')?.warning).toMatch(
          /^OPENAI_API_KEY is set but not used/,
        );
        expect(proc.output.join('\n')).not.toContain('sk-check-secret');
        expect(proc.output.join('\n')).not.toContain('sk-unused');
      } finally {
        proc.child.kill('SIGTERM');
        await proc.exitsWithin(EXIT_WITHIN_MS);
      }
    },
  );
});

describe('--check', TEST_TIMEOUT, () => {
  it('prints the effective providers, models, hooks and limits with secrets masked, and exits 0', async () => {
    const path = configFile(
      'providers:\n  mock:\n    type: openai\n    baseUrl: http://127.0.0.1:9/v1\n    apiKey: ${MOCK_KEY}\n    models: [m, n]\n' +
        'hooks:\n  team:\n    type: slack\n    signingSecret: slack-signing-secret-123\n    botToken: xoxb-check-token-0123456789\n',
      'switchboard.yaml',
    );
    const { code, output } = await run(spawnApiProcess, { SWITCHBOARD_CONFIG: path, MOCK_KEY: 'sk-check-secret-0123456789' }, [
      '--check',
    ]);
    expect(code, output).toBe(0);
    expect(output).toContain('# switchboard: the configuration is valid');
    expect(output).toMatch(/defaultModel: mock\/m/);
    expect(output).toMatch(
      /mock:\n\s+type: openai\n\s+baseUrl: http:\/\/127\.0\.0\.1:9\/v1\n\s+models:\n\s+- m\n\s+- n\n\s+key: set/,
    );
    expect(output).toMatch(/team:\n(\s+\S.*\n)*\s+botToken: "\[redacted\]"/);
    expect(output).toMatch(/limits:\n\s+maxBodyBytes: 1048576/);
    expect(output).not.toContain('sk-check-secret');
    expect(output).not.toContain('xoxb-check-token');
    expect(output).not.toContain('slack-signing-secret');
  });

  it("prints one deprecation line naming an API key's old flat budget key and its replacement", async () => {
    const old = configFile({ providers: { mock: provider }, apiKeys: [{ key: 'sk-check-flat-0123', tokensPerDay: 100 }] });
    const flat = await run(spawnApiProcess, { SWITCHBOARD_CONFIG: old }, ['--check']);
    expect(flat.code).toBe(0);
    expect(flat.output.split('\n').filter((line) => line.includes('deprecated'))).toEqual([
      'switchboard: warning: apiKeys[0].tokensPerDay is deprecated: write apiKeys[0].budget.tokensPerDay (the budget object hooks take)',
    ]);
    const current = configFile({
      providers: { mock: provider },
      apiKeys: [{ key: 'sk-check-flat-0123', budget: { tokensPerDay: 100 } }],
    });
    const budget = await run(spawnApiProcess, { SWITCHBOARD_CONFIG: current }, ['--check']);
    expect(budget.code).toBe(0);
    expect(budget.output).toContain('# switchboard: the configuration is valid');
    expect(budget.output).not.toContain('deprecated');
  });

  it('connects to each MCP server and lists its tools, or says why it is not connected, secrets masked', async () => {
    const path = configFile({
      providers: { mock: provider },
      mcpServers: {
        desk: { command: process.execPath, args: [MCP_STDIO_SERVER], env: { DESK_KEY: 'desk-env-secret-0123' } },
        gone: { url: `http://127.0.0.1:${await freePort()}/mcp`, headers: { authorization: 'Bearer gone-header-secret-0123' } },
      },
      hooks: { ask: { type: 'generic', token: 'ask-hook-token-0123', tools: ['desk/add', 'gone'] } },
    });
    const { code, output } = await run(spawnApiProcess, { SWITCHBOARD_CONFIG: path }, ['--check']);
    expect(code, output).toBe(0);
    expect(output).toContain('#   desk (stdio): connected; tools: add, slow, create_ticket, huge, crash, reveal');
    expect(output).toMatch(/# {3}gone \(http\): not connected: connecting: /);
    expect(output).toContain('# switchboard: the configuration is valid');
    expect(output).not.toContain('desk-env-secret');
    expect(output).not.toContain('gone-header-secret');
  });

  it('exits 78 naming a hook that grants tools of a server that is not configured', async () => {
    const path = configFile({
      providers: { mock: provider },
      hooks: { ask: { type: 'generic', token: 'ask-hook-token-0123', tools: ['nowhere/add'] } },
    });
    const { code, output } = await run(spawnApiProcess, { SWITCHBOARD_CONFIG: path }, ['--check']);
    expect(code, output).toBe(78);
    expect(output).toContain("hooks.ask.tools.0: there is no MCP server named 'nowhere'");
  });

  it('exits 78 for a configuration that would not start', async () => {
    const path = configFile({ defaultModel: 'mock/nope', providers: { mock: provider } });
    const { code, output } = await run(spawnApiProcess, { SWITCHBOARD_CONFIG: path }, ['--check']);
    expect(code, output).toBe(78);
    expect(output).toContain('defaultModel:');
    expect(output).not.toContain('the configuration is valid');
  });
});
