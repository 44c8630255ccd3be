import type { StateKeys } from './keys.js';
import type { RedisClient } from './redis.js';
import { parseField } from './usage-fields.js';

/** Summed usage of one key, model and hook over the days read. */
export interface UsageRow {
  key: string;
  model: string;
  hook: string;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  cost: number;
  /** Requests whose model had no price (their cost counted as 0). */
  unpriced: number;
}

/** Usage per key, model and hook, summed over `days` (UTC `YYYY-MM-DD`): one pipeline (on a cluster, one per slot of days). */
export async function readUsage(redis: RedisClient, keys: StateKeys, days: readonly string[]): Promise<UsageRow[]> {
  const groups = keys.sameSlot(days, (day) => keys.usageDay(day));
  const perGroup = await Promise.all(
    groups.map(async (group) => {
      const pipeline = redis.pipeline();
      for (const day of group) pipeline.hgetall(keys.usageDay(day));
      return (await pipeline.exec()) ?? [];
    }),
  );
  const results = perGroup.flat();
  const rows = new Map<string, UsageRow>();
  for (const [err, hash] of results) {
    if (err) throw err;
    for (const [name, value] of Object.entries(hash as Record<string, string>)) {
      const field = parseField(name);
      let row = rows.get(field.base);
      if (!row) {
        const { key, model, hook } = field;
        row = { key, model, hook, requests: 0, promptTokens: 0, completionTokens: 0, cost: 0, unpriced: 0 };
        rows.set(field.base, row);
      }
      if (field.metric) row[field.metric] += Number(value);
    }
  }
  return [...rows.values()];
}
