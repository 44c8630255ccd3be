import { z } from 'zod';
import type { StateKeys } from './keys.js';
import { defineCommands, type RedisClient, withTimeout } from './redis.js';

/** One deployment's health as every process sees it (the providers package's CooldownStore reads this shape). */
export interface DeploymentHealth {
  coolingForMs: number;
  lastError: string | null;
  lastErrorAt: number | null;
}

/**
 * KEYS[1] the deployments hash; ARGV[1] a deployment id; ARGV[2] its cooldown in ms (0: it
 * answered again); ARGV[3] the error; ARGV[4] the hash's lifetime in ms. Times are Redis's own
 * clock, so processes on hosts whose clocks differ agree on when a cooldown ends. A longer
 * cooldown already running is kept; the last error stays after recovery, for /status.
 */
const MARK = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local entry = {}
local old = redis.call('HGET', KEYS[1], ARGV[1])
if old then
  local ok, decoded = pcall(cjson.decode, old)
  if ok and type(decoded) == 'table' then entry = decoded end
end
local ms = tonumber(ARGV[2])
if ms > 0 then
  if type(entry.cool_until) ~= 'number' or entry.cool_until < now + ms then entry.cool_until = now + ms end
  entry.error = ARGV[3]
  entry.error_at = now
else
  entry.cool_until = 0
end
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(entry))
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`;

/** KEYS[1] the deployments hash. Returns Redis's time (ms) and the whole hash: one clock, one round trip. */
const READ = `
local t = redis.call('TIME')
return { tostring(tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)), redis.call('HGETALL', KEYS[1]) }
`;

const entrySchema = z.looseObject({
  cool_until: z.number().catch(0),
  error: z.string().nullish().catch(null),
  error_at: z.number().nullish().catch(null),
});

type CooldownRedis = RedisClient & {
  sbCooldownMark(key: string, id: string, ms: number, error: string, ttlMs: number): Promise<number>;
  sbCooldownRead(key: string): Promise<[string, string[]]>;
};

export interface RedisCooldownStoreOptions {
  /** A read never holds a request longer than this; past it the gateway goes on without. @defaultValue 250 */
  readTimeoutMs?: number;
  /** How long the hash lives after its last write (last errors are shown that long). @defaultValue 86400000 */
  retainMs?: number;
}

/**
 * Deployment cooldowns shared by every API and worker process: one hash (deployment id → JSON),
 * written by one script per event and read whole by another, each touching one key (cluster-safe).
 */
export class RedisCooldownStore {
  readonly #redis: CooldownRedis;
  readonly #readTimeoutMs: number;
  readonly #retainMs: number;

  constructor(
    redis: RedisClient,
    private readonly keys: StateKeys,
    options: RedisCooldownStoreOptions = {},
  ) {
    defineCommands(redis, { sbCooldownMark: { numberOfKeys: 1, lua: MARK }, sbCooldownRead: { numberOfKeys: 1, lua: READ } });
    this.#redis = redis as CooldownRedis;
    this.#readTimeoutMs = options.readTimeoutMs ?? 250;
    this.#retainMs = options.retainMs ?? 86_400_000;
  }

  async read(): Promise<Map<string, DeploymentHealth>> {
    const [time, flat] = await withTimeout(this.#redis.sbCooldownRead(this.keys.deployments), this.#readTimeoutMs);
    const now = Number(time);
    const out = new Map<string, DeploymentHealth>();
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const entry = parseEntry(flat[i + 1]!);
      if (!entry) continue;
      out.set(flat[i]!, {
        coolingForMs: Math.max(0, entry.cool_until - now),
        lastError: entry.error ?? null,
        // Shown as a date: converted to this host's clock.
        lastErrorAt: entry.error_at != null ? Date.now() - (now - entry.error_at) : null,
      });
    }
    return out;
  }

  async coolDown(id: string, ms: number, error: string): Promise<void> {
    await withTimeout(this.#redis.sbCooldownMark(this.keys.deployments, id, Math.ceil(ms), error, this.#retainMs), 1_000);
  }

  async recover(id: string): Promise<void> {
    await withTimeout(this.#redis.sbCooldownMark(this.keys.deployments, id, 0, '', this.#retainMs), 1_000);
  }
}

function parseEntry(json: string): z.infer<typeof entrySchema> | null {
  try {
    const parsed = entrySchema.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
