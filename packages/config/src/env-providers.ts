import { ConfigError } from '@switchboard/protocol';
import { describeIssues } from './config-file.js';
import { type Env, referencedVariables } from './interpolate.js';
import { type FileConfig, providerSchema } from './schema.js';

/** `OPENAI_*` and `ANTHROPIC_*`: a provider each, from the environment alone. */
const SHORTCUTS = [
  { name: 'openai', type: 'openai', prefix: 'OPENAI', baseUrl: 'https://api.openai.com/v1', models: 'gpt-4o-mini,gpt-4o' },
  {
    name: 'anthropic',
    type: 'anthropic',
    prefix: 'ANTHROPIC',
    baseUrl: 'https://api.anthropic.com',
    models: 'claude-sonnet-4-5',
  },
] as const;

/**
 * One rule for where providers come from. Without a config file, `OPENAI_API_KEY` or
 * `OPENAI_BASE_URL` (and the `ANTHROPIC_*` pair) each add a provider. With a config file, its
 * `providers` are the whole list: these variables count only where the file names them
 * (`apiKey: ${OPENAI_API_KEY}`). Adding them beside the file's own providers is what listed
 * `gpt-4o-mini` twice and made the bare name ambiguous.
 */
export function addEnvProviders(config: FileConfig, env: Env): void {
  for (const s of SHORTCUTS) {
    const apiKey = env[`${s.prefix}_API_KEY`];
    const baseUrl = env[`${s.prefix}_BASE_URL`];
    if (!apiKey && !baseUrl) continue;
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

/**
 * What to tell the operator when a config file is given and a shortcut variable is set that the
 * file never names: it has no effect, which they may not expect.
 */
export function unusedShortcutWarnings(env: Env, fileValues: string): string[] {
  const named = new Set(referencedVariables(fileValues));
  return SHORTCUTS.flatMap((s) => {
    const set = ['API_KEY', 'BASE_URL', 'MODELS'].map((part) => `${s.prefix}_${part}`).filter((name) => env[name]);
    if (set.length === 0 || set.some((name) => named.has(name))) return [];
    return [
      `${set.join(', ')} ${set.length > 1 ? 'are' : 'is'} set but not used: with a config file its providers are the whole list; name the variable in the file (apiKey: \${${s.prefix}_API_KEY}) to use it`,
    ];
  });
}
