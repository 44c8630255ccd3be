/** The periods budgets count in and usage is kept by: UTC days and UTC calendar months. */

export const DAY_MS = 86_400_000;

export const utcDay = (at: Date) => at.toISOString().slice(0, 10);
const utcMonth = (at: Date) => at.toISOString().slice(0, 7);
const nextDay = (at: Date) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));
const nextMonth = (at: Date) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));

/** Each limit's counter: its period's name, lifetime and end, and what it counts. */
export const PERIODS = {
  tokensPerDay: { name: (at: Date) => `tokens:${utcDay(at)}`, ttlMs: 2 * DAY_MS, resetsAt: nextDay, spends: 'tokens' },
  costPerMonth: { name: (at: Date) => `cost:${utcMonth(at)}`, ttlMs: 62 * DAY_MS, resetsAt: nextMonth, spends: 'cost' },
} as const;

/** A budget's limit: tokens per UTC day, or cost per UTC calendar month. */
export type Limit = keyof typeof PERIODS;
