import { readQueuedMessage } from '@switchboard/protocol';
import { z } from 'zod';
import { readReply } from './exchange.js';
import type { HubShards } from './hub.js';
import { JOB_FIELDS } from './keys.js';
import { parseRecordedJson } from './recorded-json.js';
import { awaitingSchema } from './tool-ledger.js';

/** What a caller may learn of its message. */
export interface JobView {
  id: string;
  status: 'queued' | 'active' | 'awaiting_approval' | 'completed' | 'failed';
  /** The tool call waiting for a yes (status `awaiting_approval`). */
  approval?: { tool: string; arguments: string; until: string };
  /** The reply, once one was generated. */
  reply?: string;
  /** Why it failed, when it failed for good. */
  error?: string;
  /** Attempts made (failed ones, plus the one that succeeded). */
  attempts: number;
}

/** What a completed job returned (see the worker's processor). */
export const jobResultSchema = z.object({ reply: z.string().nullable(), model: z.string().nullable(), parts: z.number() });
export type JobResult = z.infer<typeof jobResultSchema>;

/**
 * The job as one consistent snapshot: its hash and its lock are read in one MULTI, so status,
 * reply, error and attempts always belong together (BullMQ writes `finishedOn` with the return
 * value or failure, and counts the attempt, in one script). Null when the hook has no such job.
 */
export async function readJobView(hubs: HubShards, hook: string, id: string): Promise<JobView | null> {
  const hub = hubs.forJob(id);
  const key = hub.queue.toKey(id);
  const results = await hub.redis.multi().hgetall(key).exists(`${key}:lock`).exec();
  if (!results) throw new Error('the job read was aborted');
  const [[hashError, hash], [lockError, locked]] = results as [[Error | null, Record<string, string>], [Error | null, number]];
  if (hashError || lockError) throw hashError ?? lockError;
  const queued = hash.data ? readQueuedMessage(parseRecordedJson(hash.data)) : null;
  if (!queued || queued.message.hook !== hook) return null;

  const finished = hash.finishedOn !== undefined;
  const completed = finished && hash.returnvalue !== undefined;
  const awaiting = awaitingSchema.safeParse(parseRecordedJson(hash[JOB_FIELDS.awaiting] ?? '')).data;
  const waitsForYes =
    !finished && locked !== 1 && awaiting !== undefined && hash[`${JOB_FIELDS.toolPrefix}${awaiting.key}:approval`] === undefined;
  const status = completed
    ? 'completed'
    : finished
      ? 'failed'
      : locked === 1
        ? 'active'
        : waitsForYes
          ? 'awaiting_approval'
          : 'queued';
  const result = completed ? jobResultSchema.safeParse(parseRecordedJson(hash.returnvalue!)) : null;
  const reply = result?.success ? result.data.reply : (readReply(hash[JOB_FIELDS.reply])?.text ?? queued.legacy?.reply?.text);
  return {
    id,
    status,
    ...(reply != null ? { reply } : {}),
    ...(waitsForYes && awaiting
      ? { approval: { tool: awaiting.tool, arguments: awaiting.arguments, until: new Date(awaiting.until).toISOString() } }
      : {}),
    ...(status === 'failed' && hash.failedReason ? { error: hash.failedReason } : {}),
    attempts: Number(hash.atm ?? hash.attemptsMade ?? 0) || 0,
  };
}
