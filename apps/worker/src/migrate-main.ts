import { parseArgs } from 'node:util';
import { ConfigError, exitOnConfigError } from '@switchboard/config';
import { createQueueRedis, redisReady } from '@switchboard/state';
import { type Layout, layoutSettings, MigrationRefused, migrate } from './migrate.js';

/** EX_USAGE from sysexits.h: an option the program does not know. */
const EXIT_USAGE = 64;
/** Refused: workers are alive. EX_TEMPFAIL from sysexits.h: try again once they are stopped. */
const EXIT_REFUSED = 75;
/** How long each Redis gets to answer before the run gives up. */
const CONNECT_MS = 10_000;

const USAGE = `Usage: npm run migrate -- --from <redis url> --to <redis url> [--from-shards N] [--to-shards M]
                            [--prefix P] [--cluster-to] [--dry-run]

Copies a deployment's conversation memory, approved people, pending pairing requests and
unfinished jobs from one key layout to another: one Redis to a Redis Cluster, or another
redis.shards. The source is only read. Run it with every worker stopped (it refuses otherwise);
running it again copies nothing twice. See docs/scaling.md "Moving to a cluster".

  --from URL         the deployment's Redis now (redis://, redis-cluster://, redis-sentinel://)
  --to URL           where it moves
  --from-shards N    redis.shards of the source (default: the config's, SWITCHBOARD_CONFIG)
  --to-shards M      redis.shards of the target (default: the config's)
  --prefix P         SWITCHBOARD_REDIS_PREFIX of both (default: the environment's, else switchboard)
  --cluster-to       the --to URL (redis://host:port) is a node of a cluster
  --dry-run          count what would be copied; write nothing

Exit codes: 0 copied, 1 failed, 64 bad option, 75 workers alive, 78 configuration error.
`;

const OPTIONS = {
  from: { type: 'string' },
  to: { type: 'string' },
  'from-shards': { type: 'string' },
  'to-shards': { type: 'string' },
  prefix: { type: 'string' },
  'cluster-to': { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  help: { type: 'boolean' },
} as const;

function options() {
  try {
    return parseArgs({ args: process.argv.slice(2), options: OPTIONS }).values;
  } catch (err) {
    process.stderr.write(`switchboard migrate: ${(err as Error).message}\n\n${USAGE}`);
    process.exit(EXIT_USAGE);
  }
}

async function main(): Promise<void> {
  const values = options();
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (!values.from || !values.to) {
    process.stderr.write(`switchboard migrate: --from and --to are required\n\n${USAGE}`);
    process.exit(EXIT_USAGE);
  }
  const prefix = values.prefix;
  const from = layoutSettings(process.env, {
    url: values.from,
    shards: shardCount(values['from-shards'], '--from-shards'),
    ...(prefix ? { prefix } : {}),
  });
  const to = layoutSettings(process.env, {
    url: values.to,
    shards: shardCount(values['to-shards'], '--to-shards'),
    cluster: values['cluster-to'] ?? false,
    ...(prefix ? { prefix } : {}),
  });
  const layouts: Layout[] = [from, to].map((settings) => ({ settings, redis: createQueueRedis(settings.redis) }));
  const say = (line: string) => process.stdout.write(`${line}\n`);
  // Bounded: a Redis that does not answer within CONNECT_MS is an error, not a wait.
  for (const [name, layout] of [
    ['source', layouts[0]!],
    ['target', layouts[1]!],
  ] as const) {
    layout.redis.on('error', () => {});
    if (!(await redisReady(layout.redis, CONNECT_MS))) {
      for (const { redis } of layouts) redis.disconnect();
      throw new Error(`the ${name} Redis (${layout.settings.redis.mode}) did not answer within ${CONNECT_MS / 1000} s`);
    }
  }
  say(
    `from ${from.redis.mode} (${from.config.redis.shards} shard(s)) to ${to.redis.mode} (${to.config.redis.shards} shard(s)), prefix ${from.redisPrefix}`,
  );
  try {
    await migrate(layouts[0]!, layouts[1]!, { dryRun: values['dry-run'] ?? false, log: say });
  } finally {
    await Promise.all(layouts.map((layout) => layout.redis.quit().catch(() => layout.redis.disconnect())));
  }
}

function shardCount(raw: string | undefined, option: string): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 256)
    throw new ConfigError(`${option}: '${raw}' is not a whole number from 1 to 256 (redis.shards)`);
  return value;
}

main().catch((err: unknown) => {
  exitOnConfigError(err);
  // Exits once the line is written (stderr may be a pipe, written asynchronously).
  process.stderr.write(`switchboard migrate: ${err instanceof Error ? err.message : String(err)}\n`, () =>
    process.exit(err instanceof MigrationRefused ? EXIT_REFUSED : 1),
  );
});
