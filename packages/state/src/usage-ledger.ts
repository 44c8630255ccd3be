import { BatchedWriter } from './batched-writer.js';
import type { StateKeys } from './keys.js';
import { defineCommands, type RedisClient } from './redis.js';

/** What a subject (`key:<name>` or `hook:<name>`) may spend; either limit may be absent. */
export interface BudgetLimits {
  tokensPerDay?: number;
  costPerMonth?: number;
}

export interface BudgetSubject {
  subject: string;
  limits: BudgetLimits;
}

/** One call's usage, as recorded: `key` and `hook` are `-` when there is none. */
export interface UsageEntry {
  key: string;
  model: string;
  hook: string;
  promptTokens: number;
  completionTokens: number;
  /** null when the model has no price. */
  cost: number | null;
}

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

type Limit = 'tokensPerDay' | 'costPerMonth';

/** One budget counter a reservation drew on, and how much it reserved there. */
interface Hold {
  counter: string;
  limit: Limit;
  amount: number;
  ttlMs: number;
}

/** What `reserve` took: settled by `record` with the actual usage, or given back by `release`. */
export interface Reservation {
  holds: Hold[];
}

export type ReserveResult =
  | { ok: true; reservation: Reservation }
  | { ok: false; subject: string; limit: Limit; limitValue: number; spent: number; resetsAt: Date };

const DAY_MS = 86_400_000;

/**
 * KEYS: budget counters. ARGV: per key, its limit, the amount to reserve and its lifetime (ms).
 * Refuses (returns the 1-based index of the first spent counter and its value) when any counter
 * has reached its limit; else reserves on all of them at once and returns {0}.
 */
const RESERVE = `
for i = 1, #KEYS do
  local spent = tonumber(redis.call('GET', KEYS[i]) or '0')
  if spent >= tonumber(ARGV[3 * i - 2]) then return {i, tostring(spent)} end
end
for i = 1, #KEYS do
  if tonumber(ARGV[3 * i - 1]) ~= 0 then redis.call('INCRBYFLOAT', KEYS[i], ARGV[3 * i - 1]) end
  redis.call('PEXPIRE', KEYS[i], ARGV[3 * i])
end
return {0, ''}
`;

/** Records summed until they are written: hash → field → increment, and budget counter deltas. */
interface Batch {
  hashes: Map<string, Map<string, number>>;
  counters: Map<string, { delta: number; ttlMs: number }>;
}

/** How long usage records of calls without a budget are gathered before they are written. */
const RECORD_EVERY_MS = 1_000;

type LedgerRedis = RedisClient & { sbBudgetReserve(...args: (string | number)[]): Promise<[number, string]> };

export const utcDay = (at: Date) => at.toISOString().slice(0, 10);
const utcMonth = (at: Date) => at.toISOString().slice(0, 7);
const nextDay = (at: Date) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));
const nextMonth = (at: Date) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));

/** Each limit's counter: its period's name, lifetime and end, and what it counts. */
const PERIODS = {
  tokensPerDay: { name: (at: Date) => `tokens:${utcDay(at)}`, ttlMs: 2 * DAY_MS, resetsAt: nextDay, spends: 'tokens' },
  costPerMonth: { name: (at: Date) => `cost:${utcMonth(at)}`, ttlMs: 62 * DAY_MS, resetsAt: nextMonth, spends: 'cost' },
} as const;

const METRICS = { requests: 'r', promptTokens: 'p', completionTokens: 'c', cost: '$', unpriced: 'u' } as const;
/** A usage hash field is `<key>|<model>|<hook>|<metric>`; this is the part before the metric. */
const fieldPrefix = (entry: Pick<UsageEntry, 'key' | 'model' | 'hook'>) =>
  `${encodeURIComponent(entry.key)}|${encodeURIComponent(entry.model)}|${encodeURIComponent(entry.hook)}|`;

/**
 * Usage and budgets in Redis. Usage: one hash per UTC day, fields `<key>|<model>|<hook>|<metric>`
 * (parts URI-encoded), incremented by one MULTI per second or per turn with a budget (calls summed).
 * Budgets: one counter per subject, limit and period (`tokens:<day>`, `cost:<month>`). A call
 * first reserves its estimate on its
 * subjects' counters in one script — refused when a counter has already reached its limit — and
 * then settles with what it actually used (the difference), or gives the reservation back when
 * it used nothing. Concurrent calls therefore see each other's reservations: the budget is
 * overshot at most by what the admitted calls use beyond their estimates.
 */
export class UsageLedger {
  readonly #redis: LedgerRedis;
  /** The records gathered and not yet written; a failed write drops them (its callers hear why). */
  readonly #writer: BatchedWriter<Batch>;
  /** The usage hash of the UTC day last recorded in (days since the epoch, and its key). */
  #day = { number: Number.NaN, hash: '' };

  constructor(
    redis: RedisClient,
    private readonly keys: StateKeys,
    private readonly options: { recordUsage: boolean; retentionDays: number },
  ) {
    defineCommands(redis, { sbBudgetReserve: { lua: RESERVE } });
    this.#redis = redis as LedgerRedis;
    this.#writer = new BatchedWriter<Batch>({
      open: () => ({ hashes: new Map(), counters: new Map() }),
      write: (batch) => this.#write(batch),
      onFailure: 'drop',
      flushMs: RECORD_EVERY_MS,
    });
  }

  /** Reserves `estimate` on every limit of `subjects`, or says which limit is already reached. One round trip. */
  async reserve(
    subjects: readonly BudgetSubject[],
    estimate: { tokens: number; cost: number },
    now = new Date(),
  ): Promise<ReserveResult> {
    const holds: (Hold & { subject: string; limitValue: number; resetsAt: Date })[] = [];
    for (const { subject, limits } of subjects) {
      for (const limit of Object.keys(PERIODS) as Limit[]) {
        const limitValue = limits[limit];
        if (limitValue === undefined) continue;
        const period = PERIODS[limit];
        const counter = this.keys.budget(subject, period.name(now));
        const amount = estimate[period.spends];
        holds.push({ subject, limit, limitValue, counter, amount, ttlMs: period.ttlMs, resetsAt: period.resetsAt(now) });
      }
    }
    if (holds.length === 0) return { ok: true, reservation: { holds: [] } };
    const args = holds.flatMap((h) => [h.limitValue, h.amount, h.ttlMs]);
    const [refused, spent] = await this.#redis.sbBudgetReserve(holds.length, ...holds.map((h) => h.counter), ...args);
    const hit = holds[refused - 1];
    if (hit)
      return {
        ok: false,
        subject: hit.subject,
        limit: hit.limit,
        limitValue: hit.limitValue,
        spent: Number(spent),
        resetsAt: hit.resetsAt,
      };
    return {
      ok: true,
      reservation: { holds: holds.map(({ counter, limit, amount, ttlMs }) => ({ counter, limit, amount, ttlMs })) },
    };
  }

  /**
   * Records a call's usage and settles its reservation (actual − reserved on each counter). Records
   * are summed and written together in one MULTI: a call with a budget settles at the end of its
   * event-loop turn (the next call must see what it spent); one without is gathered for up to a
   * second, as channel counters are, so a call costs a map update, not a round trip. The promise
   * settles with the write. `close()` writes what is gathered.
   */
  record(entry: UsageEntry, reservation: Reservation, now = new Date()): Promise<void> {
    const batch = this.#writer.batch;
    if (reservation.holds.length > 0) this.#writer.soon();
    if (this.options.recordUsage) {
      const hash = this.#dayHash(now);
      const fields = batch.hashes.get(hash) ?? new Map<string, number>();
      batch.hashes.set(hash, fields);
      const prefix = fieldPrefix(entry);
      const add = (metric: string, by: number) => {
        const name = prefix + metric;
        fields.set(name, (fields.get(name) ?? 0) + by);
      };
      add(METRICS.requests, 1);
      add(METRICS.promptTokens, entry.promptTokens);
      add(METRICS.completionTokens, entry.completionTokens);
      if (entry.cost === null) add(METRICS.unpriced, 1);
      else if (entry.cost > 0) add(METRICS.cost, entry.cost);
    }
    const used = { tokensPerDay: entry.promptTokens + entry.completionTokens, costPerMonth: entry.cost ?? 0 };
    for (const hold of reservation.holds) {
      const counter = batch.counters.get(hold.counter) ?? { delta: 0, ttlMs: hold.ttlMs };
      counter.delta += used[hold.limit] - hold.amount;
      batch.counters.set(hold.counter, counter);
    }
    return this.#writer.written;
  }

  #dayHash(now: Date): string {
    const number = Math.floor(now.getTime() / DAY_MS);
    if (number !== this.#day.number) this.#day = { number, hash: this.keys.usageDay(utcDay(now)) };
    return this.#day.hash;
  }

  /** One MULTI for a batch (none when it holds nothing: usage not recorded, no budget). */
  #write({ hashes, counters }: Batch): Promise<unknown> {
    if (hashes.size === 0 && counters.size === 0) return Promise.resolve();
    const multi = this.#redis.multi();
    for (const [hash, fields] of hashes) {
      for (const [name, by] of fields) {
        if (name.endsWith(`|${METRICS.cost}`)) multi.hincrbyfloat(hash, name, by);
        else multi.hincrby(hash, name, by);
      }
      multi.pexpire(hash, this.options.retentionDays * DAY_MS);
    }
    for (const [counter, { delta, ttlMs }] of counters) {
      if (delta !== 0) multi.incrbyfloat(counter, delta);
      multi.pexpire(counter, ttlMs);
    }
    return multi.exec();
  }

  /** Writes the records gathered so far (at shutdown); resolves once Redis took them (bounded). */
  close(): Promise<void> {
    return this.#writer.close();
  }

  /** Gives a reservation back (a call that failed before using anything). */
  async release(reservation: Reservation): Promise<void> {
    const held = reservation.holds.filter((hold) => hold.amount !== 0);
    if (held.length === 0) return;
    const multi = this.#redis.multi();
    for (const hold of held) multi.incrbyfloat(hold.counter, -hold.amount);
    await multi.exec();
  }

  /** Usage per key, model and hook, summed over `days` (UTC `YYYY-MM-DD`): one pipeline. */
  async read(days: readonly string[]): Promise<UsageRow[]> {
    const pipeline = this.#redis.pipeline();
    for (const day of days) pipeline.hgetall(this.keys.usageDay(day));
    const results = (await pipeline.exec()) ?? [];
    const rows = new Map<string, UsageRow>();
    for (const [err, hash] of results) {
      if (err) throw err;
      for (const [name, value] of Object.entries(hash as Record<string, string>)) {
        const cut = name.lastIndexOf('|');
        const base = name.slice(0, cut);
        let row = rows.get(base);
        if (!row) {
          const [key = '', model = '', hook = ''] = base.split('|').map(decodeURIComponent);
          row = { key, model, hook, requests: 0, promptTokens: 0, completionTokens: 0, cost: 0, unpriced: 0 };
          rows.set(base, row);
        }
        const metric = (Object.keys(METRICS) as (keyof typeof METRICS)[]).find((m) => METRICS[m] === name.slice(cut + 1));
        if (metric) row[metric] += Number(value);
      }
    }
    return [...rows.values()];
  }
}
