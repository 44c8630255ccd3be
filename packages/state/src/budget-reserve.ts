import type { StateKeys } from './keys.js';
import { defineCommands, type RedisClient } from './redis.js';
import { type Limit, PERIODS } from './usage-periods.js';

/** What a subject (`key:<name>` or `hook:<name>`) may spend; either limit may be absent. */
export interface BudgetLimits {
  tokensPerDay?: number;
  costPerMonth?: number;
}

export interface BudgetSubject {
  subject: string;
  limits: BudgetLimits;
}

/** One budget counter a reservation drew on, and how much it reserved there. */
export interface Hold {
  counter: string;
  limit: Limit;
  amount: number;
  ttlMs: number;
}

/** What `reserve` took: settled by the ledger's `record` with the actual usage, or given back by `release`. */
export interface Reservation {
  holds: Hold[];
}

export type ReserveResult =
  | { ok: true; reservation: Reservation }
  | { ok: false; subject: string; limit: Limit; limitValue: number; spent: number; resetsAt: Date };

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

type ReserveRedis = RedisClient & { sbBudgetReserve(...args: (string | number)[]): Promise<[number, string]> };

/**
 * Budget counters: one per subject, limit and period (`tokens:<day>`, `cost:<month>`). A call
 * reserves its estimate on all of its subjects' counters in one script — refused when a counter
 * has already reached its limit — so concurrent calls see each other's reservations; the
 * ledger settles a reservation with the actual usage, and `release` gives back one not used.
 */
export class BudgetCounters {
  readonly #redis: ReserveRedis;

  constructor(
    redis: RedisClient,
    private readonly keys: StateKeys,
  ) {
    defineCommands(redis, { sbBudgetReserve: { lua: RESERVE } });
    this.#redis = redis as ReserveRedis;
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

  /** Gives a reservation back (a call that failed before using anything). */
  async release(reservation: Reservation): Promise<void> {
    const held = reservation.holds.filter((hold) => hold.amount !== 0);
    if (held.length === 0) return;
    const multi = this.#redis.multi();
    for (const hold of held) multi.incrbyfloat(hold.counter, -hold.amount);
    await multi.exec();
  }
}
