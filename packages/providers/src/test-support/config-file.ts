import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Writes `config` to a JSON file of its own and returns the path, for `SWITCHBOARD_CONFIG`. */
export function configFile(config: Record<string, unknown>): string {
  const path = join(mkdtempSync(join(tmpdir(), 'switchboard-providers-')), 'config.json');
  writeFileSync(path, JSON.stringify(config));
  return path;
}
