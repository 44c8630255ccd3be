import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { findChannel } from '@switchboard/channels';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { type Env, interpolateEnv, MissingVariableError } from './interpolate.js';
import { configSchema, type FileConfig, type ProviderConfig, providerSchema } from './schema.js';

export type LogLevel = 'error' | 'warn' | 'info' | 'http' | 'verbose' | 'debug' | 'silly';

/** Everything the apps need, read once at start-up; nothing else reads `process.env`. */
export interface Settings {
  port: number;
  host: string;
  redisUrl: string;
  /** Every Redis key and BullMQ queue lives under this prefix. @defaultValue "switchboard" */
  redisPrefix: string;
  logLevel: LogLevel;
  /** How long SIGTERM waits for in-flight requests and streams. @defaultValue 30000 */
  drainMs: number;
  configPath: string | null;
  config: FileConfig;
  /** The model `default` resolves to. */
  defaultModel: string;
  /** Every configured secret, so logs and error bodies can be scrubbed of them. */
  secrets: string[];
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const LOG_LEVELS: LogLevel[] = ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'];
export const LOCAL_MODEL = 'local/echo';

export function loadSettings(env: Env): Settings {
  const configPath = env.SWITCHBOARD_CONFIG || null;
  const config = configPath ? readConfigFile(configPath, env) : parseConfig({}, '(defaults)');
  addEnvProviders(config, env);
  addEnvApiKeys(config, env);

  const logLevel = (env.LOG_LEVEL ?? 'info').toLowerCase() as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL: '${env.LOG_LEVEL}' is not one of ${LOG_LEVELS.join(', ')}`);
  }
  const port = Number(env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT: '${env.PORT}' is not a port number`);
  }

  return {
    port,
    host: env.HOST || '127.0.0.1',
    redisUrl: env.REDIS_URL || 'redis://127.0.0.1:6379',
    redisPrefix: env.SWITCHBOARD_REDIS_PREFIX || 'switchboard',
    logLevel,
    drainMs: positiveInt(env, 'SWITCHBOARD_DRAIN_MS', 30_000),
    configPath,
    config,
    defaultModel: config.defaultModel ?? firstModel(config) ?? LOCAL_MODEL,
    secrets: collectSecrets(config),
  };
}

function positiveInt(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new ConfigError(`${name}: '${raw}' is not a whole number`);
  return value;
}

export function readConfigFile(path: string, env: Env): FileConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`SWITCHBOARD_CONFIG: cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? err}`);
  }
  let raw: unknown;
  try {
    raw = ['.yaml', '.yml'].includes(extname(path).toLowerCase()) ? parseYaml(text) : JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`${path}: not valid ${extname(path) === '.json' ? 'JSON' : 'YAML/JSON'}: ${(err as Error).message}`);
  }
  try {
    raw = interpolateEnv(raw ?? {}, env);
  } catch (err) {
    if (err instanceof MissingVariableError) throw new ConfigError(`${path}: ${err.message}`);
    throw err;
  }
  return parseConfig(raw, path);
}

export function parseConfig(raw: unknown, source: string): FileConfig {
  const result = configSchema.safeParse(raw);
  if (!result.success) throw new ConfigError(`${source}: ${describeIssues(result.error)}`);
  return result.data;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const at = issue.path.map(String).join('.') || '(root)';
      if (issue.code === 'unrecognized_keys') {
        const keys = issue.keys.map((k) => (at === '(root)' ? k : `${at}.${k}`));
        return `unknown key ${keys.map((k) => `'${k}'`).join(', ')}`;
      }
      return `${at}: ${issue.message}`;
    })
    .join('; ');
}

/** `OPENAI_API_KEY`/`OPENAI_BASE_URL` and `ANTHROPIC_*` add providers unless the file names them. */
function addEnvProviders(config: FileConfig, env: Env): void {
  const shortcuts = [
    { name: 'openai', type: 'openai', prefix: 'OPENAI', baseUrl: 'https://api.openai.com/v1', models: 'gpt-4o-mini,gpt-4o' },
    {
      name: 'anthropic',
      type: 'anthropic',
      prefix: 'ANTHROPIC',
      baseUrl: 'https://api.anthropic.com',
      models: 'claude-sonnet-4-5',
    },
  ] as const;
  for (const s of shortcuts) {
    const apiKey = env[`${s.prefix}_API_KEY`];
    const baseUrl = env[`${s.prefix}_BASE_URL`];
    if ((!apiKey && !baseUrl) || config.providers[s.name]) continue;
    const parsed = providerSchema.safeParse({
      type: s.type,
      baseUrl: baseUrl || s.baseUrl,
      ...(apiKey ? { apiKey } : {}),
      models: (env[`${s.prefix}_MODELS`] || s.models)
        .split(',')
        .map((m) => m.trim())
        .filter(Boolean),
    });
    if (!parsed.success) throw new ConfigError(`${s.prefix}_*: ${describeIssues(parsed.error)}`);
    config.providers[s.name] = parsed.data;
  }
}

/** `SWITCHBOARD_API_KEYS=key1,key2` adds keys to those of the file. */
function addEnvApiKeys(config: FileConfig, env: Env): void {
  const keys = (env.SWITCHBOARD_API_KEYS ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  for (const key of keys) {
    if (key.length < 8) throw new ConfigError('SWITCHBOARD_API_KEYS: API keys must be at least 8 characters');
    config.apiKeys.push(key);
  }
}

function firstModel(config: FileConfig): string | undefined {
  for (const [name, provider] of Object.entries(config.providers)) {
    const model = provider.models[0];
    if (model) return `${name}/${model}`;
  }
  return undefined;
}

function collectSecrets(config: FileConfig): string[] {
  const hookSecrets = Object.values(config.hooks).flatMap((hook) => findChannel(hook.type)?.secrets(hook) ?? []);
  const apiKeys = config.apiKeys.map((k) => (typeof k === 'string' ? k : k.key));
  const secrets = [...Object.values(config.providers).map((p: ProviderConfig) => p.apiKey), ...hookSecrets, ...apiKeys].filter(
    (k): k is string => !!k && k.length >= 4,
  );
  return [...new Set(secrets)];
}

/**
 * For the apps' entry points: the settings, or one clear line on stderr and exit code 78
 * (EX_CONFIG) when the configuration is wrong.
 */
export function loadSettingsOrExit(env: Env): Settings {
  try {
    return loadSettings(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(`switchboard: configuration error: ${err.message}`);
    process.exit(78);
  }
}
