/**
 * Replaces `${VAR}` and `${VAR:-fallback}` in every string of a parsed config file with the
 * environment's value, so keys need not be written into the file.
 */
export type Env = Record<string, string | undefined>;

const pattern = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export class MissingVariableError extends Error {}

export function interpolateEnv(value: unknown, env: Env, path = ''): unknown {
  if (typeof value === 'string') {
    return value.replace(pattern, (_match, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined && found !== '') return found;
      if (fallback !== undefined) return fallback;
      throw new MissingVariableError(`${path || '(root)'}: environment variable ${name} is not set`);
    });
  }
  if (Array.isArray(value)) return value.map((item, i) => interpolateEnv(item, env, `${path}[${i}]`));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] = interpolateEnv(item, env, path ? `${path}.${key}` : key);
    }
    return out;
  }
  return value;
}

/** The names of the variables a config file's text refers to with `${VAR}` or `${VAR:-fallback}`. */
export function referencedVariables(text: string): string[] {
  return [...new Set([...text.matchAll(pattern)].map((match) => match[1]!))];
}
