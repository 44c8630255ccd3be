import { JOB_STATES } from '@switchboard/hub';
import { z } from 'zod';

/**
 * What the operator's routes accept: validated with these schemas, and described by them in
 * /openapi.json (openapi/document.ts), so the two never disagree.
 */

/** `GET /admin/jobs` query. */
export const listJobsQuerySchema = z.strictObject({
  state: z.enum(JOB_STATES).default('failed').describe('The jobs in this state.'),
  hook: z.string().min(1).max(200).optional().describe('Only this hook’s jobs.'),
  limit: z.coerce.number().int().min(1).max(500).default(50).describe('At most this many, newest first.'),
});

/** `POST /admin/hooks/{name}/retry` body (optional). */
export const bulkRetryBodySchema = z.strictObject({
  limit: z.number().int().min(1).max(10_000).default(1_000).describe('At most this many failed jobs, oldest failure first.'),
});

/** `GET /admin/activity` query. */
export const activityQuerySchema = z.strictObject({
  minutes: z.coerce.number().int().min(1).max(120).default(15).describe('Minutes of history, the current one included.'),
});

const utcDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date as YYYY-MM-DD (UTC)');

/** `GET /admin/usage` query (the calendar checks — a real day, from ≤ to, ≤ 366 days — are the route's). */
export const usageQuerySchema = z.strictObject({
  from: utcDate.optional().describe('First UTC day, included. Default: six days before `to`.'),
  to: utcDate.optional().describe('Last UTC day, included. Default: today.'),
  group_by: z.enum(['key', 'model', 'hook']).default('key').describe('Rows per API key (its name), requested model, or hook.'),
});
