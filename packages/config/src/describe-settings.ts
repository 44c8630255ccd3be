import { REDACTED, scrubSecrets } from '@switchboard/protocol';
import { LOCAL_MODEL, type Settings } from './settings.js';

/** One provider as the operator sees it at start-up and in `--check`: never its key. */
export interface ProviderSummary {
  name: string;
  type: string;
  baseUrl?: string;
  models: string[];
  /** Whether an API key is configured (named `key`: a field named `apiKey` is blanked by the logger). */
  key?: 'set' | 'none';
  maxConnections?: number;
}

/** The providers requests can reach, the built-in `local` included unless a configured one replaces it. */
export function describeProviders(settings: Settings): ProviderSummary[] {
  const configured = Object.entries(settings.config.providers).map(([name, p]) => ({
    name,
    type: p.type,
    baseUrl: p.baseUrl,
    models: p.models,
    key: p.apiKey ? ('set' as const) : ('none' as const),
    maxConnections: p.maxConnections,
  }));
  if (settings.config.providers.local) return configured;
  const [local, echo] = LOCAL_MODEL.split('/') as [string, string];
  return [{ name: local, type: 'built-in', models: [echo] }, ...configured];
}

/**
 * The effective configuration, secrets masked: what `--check` prints. Every configured secret is
 * cut out of every value, and a Redis URL's password too.
 */
export function describeSettings(settings: Settings): Record<string, unknown> {
  const { config } = settings;
  const summary = {
    config: settings.configPath ?? '(no file: defaults and the environment)',
    redis: {
      url: settings.redisUrl.replace(/\/\/([^@/]*)@/, `//${REDACTED}@`),
      mode: settings.redis.mode,
      prefix: settings.keyPrefix,
      shards: config.redis.shards,
    },
    listen: `${settings.host}:${settings.port}`,
    apiProcesses: settings.apiProcesses,
    defaultModel: settings.defaultModel,
    providers: Object.fromEntries(describeProviders(settings).map(({ name, ...rest }) => [name, rest])),
    fallbacks: config.fallbacks,
    hooks: config.hooks,
    mcpServers: config.mcpServers,
    apiKeys: config.apiKeys.length,
    adminKeys: config.adminKeys.length,
    rateLimit: config.rateLimit ?? 'off',
    events: config.events ?? 'off',
    limits: config.limits,
    sessions: config.sessions,
    worker: config.worker,
    health: config.health,
    drainMs: settings.drainMs,
    logLevel: settings.logLevel,
  };
  const longestFirst = [...settings.secrets].sort((a, b) => b.length - a.length);
  return masked(summary, longestFirst) as Record<string, unknown>;
}

function masked(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') return scrubSecrets(value, secrets);
  if (Array.isArray(value)) return value.map((item) => masked(item, secrets));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, masked(item, secrets)]));
  }
  return value;
}
