#!/usr/bin/env node
// `npm test`: install if needed, build, type-check, lint, then every test against the real Redis.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ensureRedis } from './lib/redis.mjs';
import { build, ensureInstalled, root, tool } from './lib/run.mjs';

ensureInstalled();
build();
tool('turbo', ['run', 'typecheck', '--output-logs=errors-only'], { env: { TURBO_TELEMETRY_DISABLED: '1' } });
tool('biome', ['check', '.']);

const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const redis = await ensureRedis(redisUrl, { quiet: true });
if (!redis.ok) {
  console.error('switchboard: the tests need Redis (they never mock it)');
  process.exit(1);
}
const vitest = spawnSync(join(root, 'node_modules/.bin/vitest'), ['run', ...process.argv.slice(2)], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, REDIS_URL: redisUrl },
});
redis.child?.kill('SIGTERM');
process.exit(vitest.status ?? 1);
