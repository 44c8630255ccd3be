import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ENV_VARIABLES } from './env-variables.js';
import { configSchema } from './schema.js';

/**
 * The README's configuration reference is complete: every key the config schema accepts (hook
 * keys of every channel included) and every environment variable appears in it as `code`. A key
 * added to a schema and not documented fails here.
 */
const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  valueType?: z.ZodType;
  options?: z.ZodType[];
  innerType?: z.ZodType;
  in?: z.ZodType;
};
const def = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (
    let d = def(current);
    ['optional', 'default', 'nullable', 'pipe', 'prefault', 'readonly'].includes(d.type);
    d = def(current)
  ) {
    current = (d.type === 'pipe' ? d.in : d.innerType)!;
  }
  return current;
}

/** `limits.maxBodyBytes`, `providers.<name>.apiKey`, `hooks.<name>.botToken`…: every leaf key a config file may set. */
function keyPaths(schema: z.ZodType, prefix: string): string[] {
  const d = def(unwrap(schema));
  if (d.type === 'object') {
    return Object.entries(d.shape ?? {}).flatMap(([key, value]) => {
      const path = prefix ? `${prefix}.${key}` : key;
      const inner = keyPaths(value, path);
      return inner.length ? inner : [path];
    });
  }
  if (d.type === 'record') return keyPaths(d.valueType!, `${prefix}.<name>`);
  if (d.type === 'union') return [...new Set((d.options ?? []).flatMap((option) => keyPaths(option, prefix)))];
  return [];
}

describe("the README's configuration reference", () => {
  const keys = keyPaths(configSchema, '');

  it('finds the keys of every part of the schema, hooks of every channel included', () => {
    expect(keys).toEqual(
      expect.arrayContaining(['apiKeys', 'providers.<name>.maxConnections', 'hooks.<name>.apiUrl', 'limits.bodyTimeoutMs']),
    );
    expect(keys.length).toBeGreaterThan(40);
  });

  it('documents every config key', () => {
    expect(keys.filter((key) => !readme.includes(`\`${key}\``))).toEqual([]);
  });

  it('documents every environment variable', () => {
    expect(ENV_VARIABLES.filter((name) => !readme.includes(`\`${name}\``))).toEqual([]);
  });
});
