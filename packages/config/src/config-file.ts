import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { ConfigError } from '@switchboard/protocol';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { deprecatedKeyWarnings } from './deprecated-keys.js';
import { type Env, interpolateEnv, MissingVariableError } from './interpolate.js';
import { configSchema, type FileConfig } from './schema.js';

/** A config file read, interpolated and validated. */
export interface ConfigFile {
  config: FileConfig;
  /** The file's values before interpolation, as JSON: what `${VAR}`s it names (its comments left out). */
  uninterpolated: string;
  /** A line for each deprecated key the file writes, naming its replacement. */
  deprecations: string[];
}

/**
 * Reads a JSON or YAML config file (by extension), replaces `${VAR}` from `env` and validates it.
 * An empty file (or one holding only comments) is an error: it is more likely a mistake than a
 * wish for every default, which needs no file at all.
 */
export function readConfigFile(path: string, env: Env): ConfigFile {
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
    if (text.trim() === '') raw = null;
    else
      throw new ConfigError(`${path}: not valid ${extname(path) === '.json' ? 'JSON' : 'YAML/JSON'}: ${(err as Error).message}`);
  }
  if (raw === null || raw === undefined) {
    throw new ConfigError(`${path}: the file is empty; write the settings in it, or unset SWITCHBOARD_CONFIG for the defaults`);
  }
  const uninterpolated = JSON.stringify(raw);
  try {
    raw = interpolateEnv(raw, env);
  } catch (err) {
    if (err instanceof MissingVariableError) throw new ConfigError(`${path}: ${err.message}`);
    throw err;
  }
  return { config: parseConfig(raw, path), uninterpolated, deprecations: deprecatedKeyWarnings(raw) };
}

export function parseConfig(raw: unknown, source: string): FileConfig {
  const result = configSchema.safeParse(raw);
  if (!result.success) throw new ConfigError(`${source}: ${describeIssues(result.error)}`);
  return result.data;
}

/** Zod issues as `path: message`, unknown keys as `unknown key 'a.b'`, at most five of them. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .flatMap(unionBranch)
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

/**
 * A union no option took (an `apiKeys` entry is a string or an object) is described by the one
 * option that took the value's type, so the message names the key at fault, not "Invalid input".
 */
function unionBranch(issue: z.core.$ZodIssue): z.core.$ZodIssue[] {
  if (issue.code !== 'invalid_union') return [issue];
  const typed = issue.errors.filter((issues) => !issues.some((i) => i.code === 'invalid_type' && i.path.length === 0));
  const [only] = typed;
  if (typed.length !== 1 || !only?.length) return [issue];
  return only.flatMap((inner) => unionBranch({ ...inner, path: [...issue.path, ...inner.path] }));
}
