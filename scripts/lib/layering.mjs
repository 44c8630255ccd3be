// The layering check as a function: dependency-cruiser's API (`cruise()`, as its doc/api.md shows:
// the rule set, the tsconfig parsed with its `extract-ts-config`) run in this process, so a caller
// that checks several trees (scripts/layering.test.mjs) loads dependency-cruiser and TypeScript once.
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise } from 'dependency-cruiser';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const { TS_CONFIG } = require('./layers.cjs');

/** Every import a file writes (.dependency-cruiser.cjs), then what loading a file loads (.dependency-cruiser-loads.cjs). */
const RULE_SETS = ['.dependency-cruiser.cjs', '.dependency-cruiser-loads.cjs'];

/**
 * Checks every workspace's `src/` under `baseDir` against the repository's rule sets, resolving
 * `@switchboard/*` through `baseDir`'s tsconfig.depcruise.json.
 *
 * @returns `ok`, and the report of each rule set one after the other (dependency-cruiser's `err` output).
 */
export async function checkLayering(baseDir) {
  const sources = ['packages', 'apps'].flatMap((group) =>
    existsSync(join(baseDir, group))
      ? readdirSync(join(baseDir, group))
          .map((name) => `${group}/${name}/src`)
          .filter((dir) => existsSync(join(baseDir, dir)))
      : [],
  );
  const tsConfigFile = join(baseDir, TS_CONFIG);
  const tsConfig = extractTSConfig(tsConfigFile);
  let ok = true;
  let report = '';
  // One after the other: dependency-cruiser clears module-level caches at the start and end of each cruise.
  for (const file of RULE_SETS) {
    const { options, ...ruleSet } = require(join(root, file));
    const result = await cruise(
      sources,
      { ...options, tsConfig: { fileName: tsConfigFile }, baseDir, ruleSet, validate: true, outputType: 'err' },
      {},
      { tsConfig },
    );
    ok &&= result.exitCode === 0;
    report += result.output;
  }
  return { ok, report };
}
