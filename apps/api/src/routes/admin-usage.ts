import type Router from '@koa/router';
import { invalidRequest } from '@switchboard/protocol';
import { round, type UsageRow, utcDay } from '@switchboard/state';
import type { AppDeps } from '../deps.js';
import { usageQuerySchema } from './admin-schemas.js';
import { parseQuery } from './parse-query.js';

type GroupBy = 'key' | 'model' | 'hook';
const DAY_MS = 86_400_000;
const MAX_DAYS = 366;

interface UsageGroup {
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost: number;
  priced?: false;
}

/**
 * GET /admin/usage?from=YYYY-MM-DD&to=YYYY-MM-DD&group_by=key|model|hook: requests, tokens and
 * cost per API key (its name, else its short id), requested model or hook, over UTC days (both
 * inclusive; `to` defaults to today, `from` to six days before `to`, at most 366 days). Behind
 * the admin keys.
 */
export function adminUsageRoutes(router: Router, deps: Pick<AppDeps, 'usage'>): void {
  // Behind the admin keys like every /admin route (app.ts).
  router.get('/admin/usage', async (ctx) => {
    const query = parseQuery(usageQuerySchema, ctx.query);
    const to = day(query.to, 'to') ?? Date.parse(utcDay(new Date()));
    const from = day(query.from, 'from') ?? to - 6 * DAY_MS;
    const groupBy: GroupBy = query.group_by;
    if (from > to) throw invalidRequest('from must not be after to.', 'from', 'invalid_date_range');
    const count = (to - from) / DAY_MS + 1;
    if (count > MAX_DAYS) throw invalidRequest(`At most ${MAX_DAYS} days at once.`, 'from', 'invalid_date_range');
    const days = Array.from({ length: count }, (_, i) => utcDay(new Date(from + i * DAY_MS)));
    const rows = await deps.usage.ledger.read(days);
    ctx.body = {
      object: 'list',
      from: days[0],
      to: days.at(-1),
      group_by: groupBy,
      data: group(rows, groupBy),
    };
  });
}

function group(rows: UsageRow[], by: GroupBy): Record<string, unknown>[] {
  const groups = new Map<string, UsageGroup & { unpriced: number }>();
  for (const row of rows) {
    const name = row[by];
    const g = groups.get(name) ?? { requests: 0, prompt_tokens: 0, completion_tokens: 0, cost: 0, unpriced: 0 };
    g.requests += row.requests;
    g.prompt_tokens += row.promptTokens;
    g.completion_tokens += row.completionTokens;
    g.cost += row.cost;
    g.unpriced += row.unpriced;
    groups.set(name, g);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, { unpriced, ...g }]) => ({ [by]: name, ...g, cost: round(g.cost), ...(unpriced ? { priced: false } : {}) }));
}

/** A UTC day `YYYY-MM-DD` as its midnight in ms; undefined when absent. */
function day(text: string | undefined, param: string): number | undefined {
  if (text === undefined) return undefined;
  const ms = Date.parse(`${text}T00:00:00Z`);
  if (Number.isNaN(ms) || utcDay(new Date(ms)) !== text) {
    throw invalidRequest(`${param} must be a date as YYYY-MM-DD (UTC).`, param, 'invalid_date');
  }
  return ms;
}
