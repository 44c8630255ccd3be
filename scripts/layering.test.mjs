// The layering check itself: a small tree of workspaces planted in a temporary folder, checked by
// the function scripts/layering.mjs runs, with the repository's own rule sets and tsconfig.depcruise.json
// (in this process: dependency-cruiser and TypeScript are loaded once for the file, not twice per test).
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkLayering } from './lib/layering.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** A tree that keeps the table: providers takes types from config, whose index loads channels. */
const KEEPS_THE_TABLE = {
  'packages/protocol/src/index.ts': 'export class ConfigError extends Error {}\n',
  'packages/channels/src/index.ts': "export const channelRegistry = ['slack'];\n",
  'packages/config/src/index.ts': "export * from './schema.js';\n",
  'packages/config/src/schema.ts': [
    "import { channelRegistry } from '@switchboard/channels';",
    'export const hookTypes = [...channelRegistry];',
    'export interface RoutesConfig { name: string }',
  ].join('\n'),
  'packages/providers/src/index.ts': [
    "import type { RoutesConfig } from '@switchboard/config';",
    "import { ConfigError } from '@switchboard/protocol';",
    'export const check = (route: RoutesConfig) => { if (!route.name) throw new ConfigError(); };',
  ].join('\n'),
  'packages/testing/src/index.ts': 'export const freePort = () => 0;\n',
  'packages/providers/src/route.test.ts': "import { freePort } from '@switchboard/testing';\nexport const port = freePort();\n",
  'apps/worker/src/index.ts': 'export const worker = 1;\n',
  'apps/api/src/index.ts': "import { check } from '@switchboard/providers';\nexport const api = check;\n",
  'apps/api/src/start.test.ts': "import { worker } from '@switchboard/worker';\nexport const started = worker;\n",
};

let dir;

function plant(files) {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

const checkLayers = () => checkLayering(dir);

describe('the layering check (npm run lint)', { timeout: 60_000 }, () => {
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'switchboard-layering-'));
    for (const file of ['tsconfig.json', 'tsconfig.depcruise.json']) copyFileSync(join(root, file), join(dir, file));
    plant(KEEPS_THE_TABLE);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('passes a tree that keeps the table (types from config, tests importing testing, api tests the worker)', async () => {
    const { ok, report } = await checkLayers();
    expect(report).not.toContain('error');
    expect(ok).toBe(true);
  });

  it('fails when providers imports channels directly', async () => {
    plant({
      'packages/providers/src/deliver.ts':
        "import { channelRegistry } from '@switchboard/channels';\nexport const n = channelRegistry.length;\n",
    });
    const { ok, report } = await checkLayers();
    expect(ok).toBe(false);
    expect(report).toContain('providers-must-not-import: packages/providers/src/deliver.ts → packages/channels/src/index.ts');
  });

  it('fails when providers loads channels through config’s index', async () => {
    plant({
      'packages/providers/src/index.ts': [
        "import { hookTypes } from '@switchboard/config';",
        'export const hooks = hookTypes.length;',
      ].join('\n'),
    });
    const { ok, report } = await checkLayers();
    expect(ok).toBe(false);
    expect(report).toContain('providers-must-not-load: packages/providers/src/index.ts → packages/channels/src/index.ts');
    expect(report).toContain('packages/config/src/schema.ts');
    // A direct import it is not: providers may import config.
    expect(report).not.toContain('providers-must-not-import');
  });

  it('fails a type-only import of what the table forbids', async () => {
    plant({
      'packages/channels/src/hooks.ts':
        "import type { RoutesConfig } from '@switchboard/config';\nexport type R = RoutesConfig;\n",
    });
    const { ok, report } = await checkLayers();
    expect(ok).toBe(false);
    expect(report).toContain('channels-must-not-import: packages/channels/src/hooks.ts → packages/config/src/index.ts');
  });

  it('fails a file of another workspace imported by its path, not through its index', async () => {
    plant({ 'apps/api/src/schema.ts': "export { hookTypes } from '../../../packages/config/src/schema.js';\n" });
    const { ok, report } = await checkLayers();
    expect(ok).toBe(false);
    expect(report).toContain('through-the-index: apps/api/src/schema.ts → packages/config/src/schema.ts');
  });

  it('fails an import circle', async () => {
    plant({
      'packages/providers/src/a.ts': "import { b } from './b.js';\nexport const a = () => b();\n",
      'packages/providers/src/b.ts': "import { a } from './a.js';\nexport const b = () => a();\n",
    });
    const { ok, report } = await checkLayers();
    expect(ok).toBe(false);
    expect(report).toContain('no-circular');
    expect(report).toContain('packages/providers/src/a.ts');
  });

  it('fails product code that imports @switchboard/testing, and the API’s product code importing the worker', async () => {
    plant({
      'packages/providers/src/port.ts': "import { freePort } from '@switchboard/testing';\nexport const port = freePort();\n",
      'apps/api/src/start.ts': "import { worker } from '@switchboard/worker';\nexport const started = worker;\n",
    });
    const { ok, report } = await checkLayers();
    expect(ok).toBe(false);
    expect(report).toContain('testing-only-in-tests: packages/providers/src/port.ts → packages/testing/src/index.ts');
    expect(report).toContain('api-must-not-import: apps/api/src/start.ts → apps/worker/src/index.ts');
  });
});
