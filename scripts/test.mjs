#!/usr/bin/env node
// `npm test`: install if needed, build, type-check, lint (biome, then the layering), then every test against the real Redis.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureRedis } from './lib/redis.mjs';
import { build, ensureInstalled, root, runAll } from './lib/run.mjs';

// A fresh clone must install without changing a tracked file: the lockfile is committed as npm writes it.
if (ensureInstalled()) {
  console.error('switchboard: npm install rewrote package-lock.json; commit the lockfile as npm writes it');
  process.exit(1);
}
build();
// Three checks that need only the build, at once (the type check is two tsc programs, one core
// each; biome and the layering fill the gaps while tsc reads files).
await runAll([
  [process.execPath, ['scripts/typecheck.mjs']], // every workspace's src/ and tests, one program per tsconfig flavour
  ['biome', ['check', '.']],
  [process.execPath, ['scripts/layering.mjs']], // the layering ARCHITECTURE.md states (dependency-cruiser)
]);

const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const redis = await ensureRedis(redisUrl, { quiet: true });
if (!redis.ok) {
  console.error('switchboard: the tests need Redis (they never mock it)');
  process.exit(1);
}
const report = join(tmpdir(), `switchboard-vitest-${process.pid}.json`);
const vitest = spawnSync(
  join(root, 'node_modules/.bin/vitest'),
  ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)],
  { cwd: root, stdio: 'inherit', env: { ...process.env, REDIS_URL: redisUrl } },
);
redis.child?.kill('SIGTERM');
// One plain closing line that any CI reader understands.
try {
  const { numPassedTests, numFailedTests, numPendingTests } = JSON.parse(readFileSync(report, 'utf8'));
  console.log(`\ntests: ${numPassedTests} passed, ${numFailedTests} failed, ${numPendingTests} skipped`);
  rmSync(report, { force: true });
} catch {
  // no report: vitest itself failed, and its exit code says so
}
process.exit(vitest.status ?? 1);
