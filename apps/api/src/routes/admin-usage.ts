import type Router from '@koa/router';
import { invalidRequest } from '@switchboard/protocol';
import { round, type UsageRow, utcDay } from '@switchboard/state';
import type { AppDeps } from '../deps.js';
import { adminAuth } from '../middleware/admin-auth.js';

const GROUPS = ['key', 'model', 'hook'] as const;
type GroupBy = (typeof GROUPS)[number];
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
export function adminUsageRoutes(router: Router, deps: AppDeps): void {
  const { config } = deps.settings;
  router.get('/admin/usage', adminAuth(config.adminKeys, config.apiKeys.length > 0), async (ctx) => {
    const to = day(ctx.query.to, 'to') ?? Date.parse(utcDay(new Date()));
    const from = day(ctx.query.from, 'from') ?? to - 6 * DAY_MS;
    const groupBy = single(ctx.query.group_by, 'group_by') ?? 'key';
    if (!GROUPS.includes(groupBy as GroupBy)) {
      throw invalidRequest(`group_by must be one of ${GROUPS.join(', ')}.`, 'group_by', 'invalid_group_by');
    }
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
      data: group(rows, groupBy as GroupBy),
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

function single(value: string | string[] | undefined, param: string): string | undefined {
  if (Array.isArray(value)) throw invalidRequest(`Give ${param} once.`, param);
  return value === undefined || value === '' ? undefined : value;
}

/** A UTC day `YYYY-MM-DD` as its midnight in ms; undefined when absent. */
function day(value: string | string[] | undefined, param: string): number | undefined {
  const text = single(value, param);
  if (text === undefined) return undefined;
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) : Number.NaN;
  if (Number.isNaN(ms) || utcDay(new Date(ms)) !== text) {
    throw invalidRequest(`${param} must be a date as YYYY-MM-DD (UTC).`, param, 'invalid_date');
  }
  return ms;
}
