import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Writes `config` to a file of its own (JSON, or the text as is) and returns the path, for `SWITCHBOARD_CONFIG`. */
export function configFile(config: Record<string, unknown> | string, name = 'config.json'): string {
  const path = join(mkdtempSync(join(tmpdir(), 'switchboard-config-')), name);
  writeFileSync(path, typeof config === 'string' ? config : JSON.stringify(config));
  return path;
}
