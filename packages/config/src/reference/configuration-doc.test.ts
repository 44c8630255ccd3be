import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ENV_VARIABLES } from '../env-variables.js';
import { configSchema } from '../schema.js';
import { CONFIG_DOCS, ENVIRONMENT_DOCS, HOOK_DOCS } from './key-docs.js';
import { renderConfigurationDoc } from './render-reference.js';
import { leafKeys, schemaPaths } from './schema-paths.js';

/**
 * docs/configuration.md and the schema agree: its tables are what `npm run docs` renders from the
 * schema today, every key the schema accepts is documented, every documented key exists, and
 * every default the schema holds is the one the reference states.
 */
const file = new URL('../../../../docs/configuration.md', import.meta.url);
const doc = readFileSync(file, 'utf8');
const paths = schemaPaths(configSchema);
const documented = [...CONFIG_DOCS, ...HOOK_DOCS];
/** How a default is written in the reference: `1000`, `hex`, `""`, `[]`. */
const format = (value: unknown) => `\`${typeof value === 'string' && value !== '' ? value : JSON.stringify(value)}\``;

describe('docs/configuration.md', () => {
  it('holds the three generated tables', () => {
    for (const name of ['environment', 'keys', 'hook-keys']) expect(doc).toContain(`<!-- generated:${name} -->`);
  });

  it('is what `npm run docs` renders from the schema (run it after changing a key)', () => {
    expect(renderConfigurationDoc(doc, configSchema)).toBe(doc);
  });

  it('documents every key the schema accepts, hook keys of every channel included', () => {
    const keys = leafKeys(configSchema);
    expect(keys).toEqual(
      expect.arrayContaining(['apiKeys', 'providers.<name>.maxConnections', 'hooks.<name>.apiUrl', 'limits.bodyTimeoutMs']),
    );
    const covered = new Set(documented.flatMap((row) => row.keys));
    expect(keys.filter((key) => !covered.has(key))).toEqual([]);
  });

  it('documents no key the schema does not accept, each in its table', () => {
    expect(CONFIG_DOCS.flatMap((row) => row.keys).filter((key) => !paths.has(key) || key.startsWith('hooks.<name>.'))).toEqual(
      [],
    );
    expect(HOOK_DOCS.flatMap((row) => row.keys).filter((key) => !paths.has(key) || !key.startsWith('hooks.<name>.'))).toEqual([]);
  });

  it("states each default the schema holds (every channel's)", () => {
    const wrong = documented.flatMap((row) =>
      row.keys.flatMap((key) =>
        (paths.get(key)?.defaults ?? [])
          .filter((value) => value === null || typeof value !== 'object' || Object.keys(value).length === 0)
          .filter((value) => !row.default.includes(format(value)))
          .map((value) => `${key}: ${format(value)}`),
      ),
    );
    expect([...new Set(wrong)]).toEqual([]);
  });

  it('documents every environment variable, in the order ENV_VARIABLES lists them', () => {
    expect(ENVIRONMENT_DOCS.flatMap((row) => row.keys)).toEqual([...ENV_VARIABLES]);
  });
});
