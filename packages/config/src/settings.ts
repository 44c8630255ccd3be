import { availableParallelism } from 'node:os';
import { findChannel } from '@switchboard/channels';
import { ConfigError, EXIT_CONFIG } from '@switchboard/protocol';
import { parseConfig, readConfigFile } from './config-file.js';
import { addEnvProviders, unusedShortcutWarnings } from './env-providers.js';
import type { Env } from './interpolate.js';
import { parseRedisTarget, type RedisTarget } from './redis-target.js';
import type { FileConfig, ProviderConfig } from './schema.js';

export type LogLevel = 'error' | 'warn' | 'info' | 'http' | 'verbose' | 'debug' | 'silly';

/** Everything the apps need, read once at start-up; nothing else reads `process.env`. */
export interface Settings {
  port: number;
  host: string;
  /**
   * How many API processes share the port (node:cluster): `API_PROCESSES`, a number or `auto`
   * (one per core). @defaultValue 1 (no cluster: the process itself serves)
   */
  apiProcesses: number;
  /** REDIS_URL as given (shown with its password masked). */
  redisUrl: string;
  /** Where Redis is: one server, a cluster, or a master named by Sentinel. */
  redis: RedisTarget;
  /** Every Redis key and BullMQ queue lives under this prefix. @defaultValue "switchboard" */
  redisPrefix: string;
  /**
   * The prefix keys are built with: `redisPrefix`, or on Redis Cluster `{redisPrefix}`, a hash tag
   * that puts every key in one slot (BullMQ keeps a queue in one slot, and the hook pipeline's
   * scripts span the queue's keys and the conversations').
   */
  keyPrefix: string;
  logLevel: LogLevel;
  /** How long SIGTERM waits for in-flight requests and streams. @defaultValue 30000 */
  drainMs: number;
  configPath: string | null;
  config: FileConfig;
  /** The model `default` resolves to. */
  defaultModel: string;
  /** Every configured secret, so logs and error bodies can be scrubbed of them. */
  secrets: string[];
  /** What the operator should hear at start-up but that does not stop it (unused variables…). */
  warnings: string[];
  /** OpenTelemetry traces, on when `OTEL_EXPORTER_OTLP_ENDPOINT` is set; null: off (no SDK loaded). */
  tracing: TracingSettings | null;
}

export interface TracingSettings {
  /** The OTLP/HTTP collector's base URL; spans go to `<endpoint>/v1/traces`. */
  endpoint: string;
  /** `OTEL_SERVICE_NAME`, else `switchboard-api` / `switchboard-worker`. */
  serviceName: string | null;
}

const LOG_LEVELS: LogLevel[] = ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'];
export const LOCAL_MODEL = 'local/echo';

export function loadSettings(env: Env): Settings {
  const configPath = env.SWITCHBOARD_CONFIG || null;
  const warnings: string[] = [];
  let config: FileConfig;
  if (configPath) {
    const file = readConfigFile(configPath, env);
    config = file.config;
    warnings.push(...file.deprecations, ...unusedShortcutWarnings(env, file.uninterpolated));
  } else {
    config = parseConfig({}, '(defaults)');
    addEnvProviders(config, env);
  }
  addEnvApiKeys(config, env);

  const logLevel = (env.LOG_LEVEL ?? 'info').toLowerCase() as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL: '${env.LOG_LEVEL}' is not one of ${LOG_LEVELS.join(', ')}`);
  }
  const port = Number(env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT: '${env.PORT}' is not a port number`);
  }

  const redisUrl = env.REDIS_URL || 'redis://127.0.0.1:6379';
  const redis = parseRedisTarget(redisUrl, config.redis.cluster);
  const redisPrefix = env.SWITCHBOARD_REDIS_PREFIX || 'switchboard';
  if (redis.mode === 'cluster' && /[{}]/.test(redisPrefix)) {
    throw new ConfigError('SWITCHBOARD_REDIS_PREFIX: on Redis Cluster the prefix is made a hash tag; it may not hold { or }');
  }
  return {
    port,
    host: env.HOST || '127.0.0.1',
    apiProcesses: apiProcesses(env.API_PROCESSES),
    redisUrl,
    redis,
    redisPrefix,
    keyPrefix: redis.mode === 'cluster' ? `{${redisPrefix}}` : redisPrefix,
    logLevel,
    drainMs: positiveInt(env, 'SWITCHBOARD_DRAIN_MS', 30_000),
    configPath,
    config,
    defaultModel: config.defaultModel ?? firstModel(config) ?? LOCAL_MODEL,
    secrets: collectSecrets(config),
    warnings,
    tracing: tracingSettings(env),
  };
}

/** `API_PROCESSES`: unset or `1` (one process), `2`…`64`, or `auto` (one per core this process may use). */
function apiProcesses(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return 1;
  if (raw.trim().toLowerCase() === 'auto') return Math.min(64, availableParallelism());
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 64) {
    throw new ConfigError(`API_PROCESSES: '${raw}' is not a whole number from 1 to 64, or auto`);
  }
  return value;
}

function tracingSettings(env: Env): TracingSettings | null {
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint) return null;
  try {
    const url = new URL(endpoint);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new ConfigError(`OTEL_EXPORTER_OTLP_ENDPOINT: '${endpoint}' is not an http(s) URL`);
  }
  return { endpoint: endpoint.replace(/\/+$/, ''), serviceName: env.OTEL_SERVICE_NAME || null };
}

function positiveInt(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new ConfigError(`${name}: '${raw}' is not a whole number`);
  return value;
}

/** `SWITCHBOARD_API_KEYS=key1,key2` (and `SWITCHBOARD_ADMIN_KEYS`) add keys to those of the file. */
function addEnvApiKeys(config: FileConfig, env: Env): void {
  for (const key of listVariable(env, 'SWITCHBOARD_API_KEYS')) {
    if (key.length < 8) throw new ConfigError('SWITCHBOARD_API_KEYS: API keys must be at least 8 characters');
    config.apiKeys.push(key);
  }
  for (const key of listVariable(env, 'SWITCHBOARD_ADMIN_KEYS')) {
    if (key.length < 16) throw new ConfigError('SWITCHBOARD_ADMIN_KEYS: admin keys must be at least 16 characters');
    config.adminKeys.push(key);
  }
}

function listVariable(env: Env, name: 'SWITCHBOARD_API_KEYS' | 'SWITCHBOARD_ADMIN_KEYS'): string[] {
  return (env[name] ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
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
  const secrets = [
    ...Object.values(config.providers).map((p: ProviderConfig) => p.apiKey),
    ...hookSecrets,
    ...apiKeys,
    ...config.adminKeys,
    config.events?.secret,
    ...Object.values(config.hooks).map((hook) => hook.events?.secret),
    ...Object.values(config.mcpServers).flatMap((server) =>
      // A header's credential is also scrubbed alone (`Bearer <token>`: the token).
      'url' in server
        ? Object.values(server.headers).flatMap((value) => [value, value.split(' ').at(-1)])
        : Object.values(server.env),
    ),
  ].filter((k): k is string => !!k && k.length >= 4);
  return [...new Set(secrets)];
}

/** A `ConfigError` ends the process with one line on stderr and exit code 78; anything else returns. */
export function exitOnConfigError(err: unknown): void {
  if (!(err instanceof ConfigError)) return;
  console.error(`switchboard: configuration error: ${err.message}`);
  process.exit(EXIT_CONFIG);
}
