import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

/**
 * Every installed package runs on the Node versions Switchboard promises: the root `engines`
 * (Node 20 from 20.19) and current Node (22, 24). A dependency that needs Node 22 installs on 20
 * with only a warning (file-type 22 once did), so the lockfile is checked instead.
 */
const NODE_VERSIONS = ['20.19.0', '22.13.0', '24.0.0'];

describe('the lockfile', () => {
  it('holds no package whose engines.node excludes Node 20.19, 22 or 24', () => {
    const lock = JSON.parse(readFileSync(new URL('../package-lock.json', import.meta.url), 'utf8'));
    const refused = [];
    for (const [path, meta] of Object.entries(lock.packages)) {
      const range = meta.engines?.node;
      if (typeof range !== 'string') continue;
      for (const version of NODE_VERSIONS) {
        if (!semver.satisfies(version, range)) refused.push(`${path} (engines.node ${range}) on Node ${version}`);
      }
    }
    expect(refused).toEqual([]);
  });
});
