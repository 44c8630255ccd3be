#!/usr/bin/env node
// `npm test`: install if needed, build, then every test against the real Redis, with the type check,
// biome and the layering running beside the tests at the lowest CPU priority.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureRedis } from './lib/redis.mjs';
import { build, ensureInstalled, reportAll, root, startAll } from './lib/run.mjs';

// A fresh clone must install without changing a tracked file: the lockfile is committed as npm writes it.
if (ensureInstalled()) {
  console.error('switchboard: npm install rewrote package-lock.json; commit the lockfile as npm writes it');
  process.exit(1);
}
build();
const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const redis = await ensureRedis(redisUrl, { quiet: true });
if (!redis.ok) {
  console.error('switchboard: the tests need Redis (they never mock it)');
  process.exit(1);
}
// Three checks that need only the build, started now beside the tests at nice 19: they take the
// cores the tests leave idle (vitest's start, the tail of the parallel phase, the scenario phase,
// whose files mostly wait on locks and timers) and yield any core a test wants (docs/tests.md).
// Their reports are printed whole after the tests'; a failed check fails `npm test`.
const checks = startAll(
  [
    [process.execPath, ['scripts/typecheck.mjs']], // every workspace's src/ and tests, one program per tsconfig flavour
    ['biome', ['check', '.']],
    [process.execPath, ['scripts/layering.mjs']], // the layering ARCHITECTURE.md states (dependency-cruiser)
  ],
  { lowPriority: true },
);

const report = join(tmpdir(), `switchboard-vitest-${process.pid}.json`);
const vitest = spawn(
  join(root, 'node_modules/.bin/vitest'),
  ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)],
  { cwd: root, stdio: 'inherit', env: { ...process.env, REDIS_URL: redisUrl } },
);
const [status] = await once(vitest, 'exit');
redis.child?.kill('SIGTERM');
console.log('');
const checked = reportAll(await checks);
// One plain closing line that any CI reader understands.
try {
  const { numPassedTests, numFailedTests, numPendingTests } = JSON.parse(readFileSync(report, 'utf8'));
  console.log(`\ntests: ${numPassedTests} passed, ${numFailedTests} failed, ${numPendingTests} skipped`);
  rmSync(report, { force: true });
} catch {
  // no report: vitest itself failed, and its exit code says so
}
if (!checked) console.log('checks: failed (above)');
process.exit(status !== 0 ? (status ?? 1) : checked ? 0 : 1);
