import { BatchedWriter } from './batched-writer.js';
import { BudgetCounters, type BudgetSubject, type Reservation, type ReserveResult } from './budget-reserve.js';
import type { StateKeys } from './keys.js';
import type { RedisClient } from './redis.js';
import { fieldPrefix, METRICS, type Metric } from './usage-fields.js';
import { DAY_MS, utcDay } from './usage-periods.js';
import { readUsage, type UsageRow } from './usage-report.js';

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

/** Records summed until they are written: hash → field → increment, and budget counter deltas. */
interface Batch {
  hashes: Map<string, Map<string, number>>;
  counters: Map<string, { delta: number; ttlMs: number }>;
}

/** At most this many keys × models × hooks keep their field names (#fieldNames). */
const MAX_NAMED = 1024;

/** Adds `by` to a field of a batch's hash. */
function add(fields: Map<string, number>, name: string, by: number): void {
  fields.set(name, (fields.get(name) ?? 0) + by);
}

/** The map under `key` in `map`, made when there is none. */
function within<V>(map: Map<string, Map<string, V>>, key: string): Map<string, V> {
  let inner = map.get(key);
  if (!inner) {
    inner = new Map();
    map.set(key, inner);
  }
  return inner;
}

/** How long usage records of calls without a budget are gathered before they are written. */
const RECORD_EVERY_MS = 1_000;

/**
 * Usage and budgets in Redis. Usage: one hash per UTC day (fields: usage-fields.ts), incremented
 * by one MULTI per second or per turn with a budget (calls summed). Budgets: a call first
 * reserves its estimate on its subjects' counters (budget-reserve.ts) and then settles here with
 * what it actually used (the difference, in the same MULTI as its usage), or gives the
 * reservation back when it used nothing. Concurrent calls therefore see each other's
 * reservations: the budget is overshot at most by what the admitted calls use beyond their
 * estimates. Reading and summing the days is usage-report.ts.
 */
export class UsageLedger {
  readonly #redis: RedisClient;
  readonly #budgets: BudgetCounters;
  /** The records gathered and not yet written; a failed write drops them (its callers hear why). */
  readonly #writer: BatchedWriter<Batch>;
  /** The usage hash of the UTC day last recorded in (days since the epoch, and its key). */
  #day = { number: Number.NaN, hash: '' };
  /** The hash fields of each key, model and hook recorded lately (#fieldNames). */
  readonly #names = new Map<string, Map<string, Map<string, Record<Metric, string>>>>();
  #named = 0;

  constructor(
    redis: RedisClient,
    private readonly keys: StateKeys,
    private readonly options: { recordUsage: boolean; retentionDays: number },
  ) {
    this.#redis = redis;
    this.#budgets = new BudgetCounters(redis, keys);
    this.#writer = new BatchedWriter<Batch>({
      open: () => ({ hashes: new Map(), counters: new Map() }),
      write: (batch) => this.#write(batch),
      onFailure: 'drop',
      flushMs: RECORD_EVERY_MS,
    });
  }

  /** Reserves `estimate` on every limit of `subjects`, or says which limit is already reached. One round trip. */
  reserve(
    subjects: readonly BudgetSubject[],
    estimate: { tokens: number; cost: number },
    now = new Date(),
  ): Promise<ReserveResult> {
    return this.#budgets.reserve(subjects, estimate, now);
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
      let fields = batch.hashes.get(hash);
      if (!fields) {
        fields = new Map<string, number>();
        batch.hashes.set(hash, fields);
      }
      const names = this.#fieldNames(entry);
      add(fields, names.requests, 1);
      add(fields, names.promptTokens, entry.promptTokens);
      add(fields, names.completionTokens, entry.completionTokens);
      if (entry.cost === null) add(fields, names.unpriced, 1);
      else if (entry.cost > 0) add(fields, names.cost, entry.cost);
    }
    const used = { tokensPerDay: entry.promptTokens + entry.completionTokens, costPerMonth: entry.cost ?? 0 };
    for (const hold of reservation.holds) {
      const counter = batch.counters.get(hold.counter) ?? { delta: 0, ttlMs: hold.ttlMs };
      counter.delta += used[hold.limit] - hold.amount;
      batch.counters.set(hold.counter, counter);
    }
    return this.#writer.written;
  }

  /**
   * The hash fields of one key, model and hook, named once: a call costs three look-ups, not three
   * URI encodings and five new strings for the batch's map to hash. Forgotten wholesale past
   * MAX_NAMED (models are what clients typed), so it never grows without bound.
   */
  #fieldNames(entry: UsageEntry): Record<Metric, string> {
    if (this.#named >= MAX_NAMED) {
      this.#names.clear();
      this.#named = 0;
    }
    const byModel = within(within(this.#names, entry.key), entry.hook);
    let names = byModel.get(entry.model);
    if (!names) {
      const prefix = fieldPrefix(entry);
      names = {
        requests: prefix + METRICS.requests,
        promptTokens: prefix + METRICS.promptTokens,
        completionTokens: prefix + METRICS.completionTokens,
        cost: prefix + METRICS.cost,
        unpriced: prefix + METRICS.unpriced,
      };
      byModel.set(entry.model, names);
      this.#named++;
    }
    return names;
  }

  #dayHash(now: Date): string {
    const number = Math.floor(now.getTime() / DAY_MS);
    if (number !== this.#day.number) this.#day = { number, hash: this.keys.usageDay(utcDay(now)) };
    return this.#day.hash;
  }

  /**
   * One MULTI for a batch (none when it holds nothing: usage not recorded, no budget); on Redis
   * Cluster one per slot, as the day's usage and each subject's counters are tagged apart (keys.ts).
   */
  #write({ hashes, counters }: Batch): Promise<unknown> {
    type Write = { key: string; add(multi: ReturnType<RedisClient['multi']>): void };
    const writes: Write[] = [];
    for (const [hash, fields] of hashes) {
      writes.push({
        key: hash,
        add: (multi) => {
          for (const [name, by] of fields) {
            if (name.endsWith(`|${METRICS.cost}`)) multi.hincrbyfloat(hash, name, by);
            else multi.hincrby(hash, name, by);
          }
          multi.pexpire(hash, this.options.retentionDays * DAY_MS);
        },
      });
    }
    for (const [counter, { delta, ttlMs }] of counters) {
      writes.push({
        key: counter,
        add: (multi) => {
          if (delta !== 0) multi.incrbyfloat(counter, delta);
          multi.pexpire(counter, ttlMs);
        },
      });
    }
    return Promise.all(
      this.keys
        .sameSlot(writes, (write) => write.key)
        .map((group) => {
          const multi = this.#redis.multi();
          for (const write of group) write.add(multi);
          return multi.exec();
        }),
    );
  }

  /** Writes the records gathered so far (at shutdown); resolves once Redis took them (bounded). */
  close(): Promise<void> {
    return this.#writer.close();
  }

  /** Gives a reservation back (a call that failed before using anything). */
  release(reservation: Reservation): Promise<void> {
    return this.#budgets.release(reservation);
  }

  /** Usage per key, model and hook, summed over `days` (UTC `YYYY-MM-DD`): one pipeline. */
  read(days: readonly string[]): Promise<UsageRow[]> {
    return readUsage(this.#redis, this.keys, days);
  }
}
