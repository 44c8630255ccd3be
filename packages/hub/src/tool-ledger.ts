import type { Queue } from 'bullmq';
import { z } from 'zod';
import type { HubRedis } from './commands/index.js';
import { JOB_FIELDS } from './keys.js';
import { parseRecordedJson } from './recorded-json.js';

/**
 * A job's tool loop, recorded as it goes so that each tool call is made once per message: the
 * model's request for tools (an assistant message with `tool_calls`) is recorded before any of
 * its calls runs, and each call's result as soon as it completes, before the next model call.
 * A run after a crash replays both — the model is not asked that step again, so its call ids stay
 * the same, and only calls with no recorded result run. Each entry is a field of the job's hash
 * (`sbTool:<step>`, `sbTool:<step>:<i>`), set once (HSETNX): if two runs race, both go on with
 * the first one's entry.
 */
export const toolCallSchema = z.looseObject({
  id: z.string(),
  type: z.string(),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});
export type ToolCall = z.infer<typeof toolCallSchema>;

export const toolStepSchema = z.looseObject({
  role: z.literal('assistant'),
  content: z.string().nullable(),
  tool_calls: z.array(toolCallSchema).min(1),
});
/** One step of the loop: the model's assistant message asking for tools. */
export type ToolStep = z.infer<typeof toolStepSchema>;

export const toolResultSchema = z.object({ text: z.string(), isError: z.boolean() });
/** What a call gave the model (its text, and whether it was an error). */
export type ToolResult = z.infer<typeof toolResultSchema>;

export const awaitingSchema = z.object({
  /** `<step>:<i>`: the call waiting. */
  key: z.string(),
  tool: z.string(),
  arguments: z.string(),
  /** Unix ms when it is denied for want of a decision. */
  until: z.number(),
  /** Platform user ids whose click counts (the hook's `approvers`, else the person who asked). */
  approvers: z.array(z.string()).optional(),
  /** The chat message holding the buttons (its channel's reference: Slack channel and ts, Telegram chat and message). */
  prompt: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
});
/** A tool call waiting for a person's yes (`approve`): the job waits, delayed, holding no worker. */
export type Awaiting = z.infer<typeof awaitingSchema>;

export const decisionSchema = z.object({
  approve: z.boolean(),
  at: z.number(),
  /** Who decided: the platform user who clicked (absent for `POST /hooks/:name/jobs/:id/approval`). */
  by: z.string().optional(),
  /** How the platform names them (a Telegram first name), for the edited question. */
  name: z.string().optional(),
});
export type Decision = z.infer<typeof decisionSchema>;

/** What earlier runs recorded: steps by number, results and decisions by `<step>:<i>`, the call awaiting approval. */
export interface ToolRecord {
  steps: Map<number, ToolStep>;
  results: Map<string, ToolResult>;
  decisions: Map<string, Decision>;
  awaiting: Awaiting | null;
}

export const EMPTY_TOOL_RECORD: ToolRecord = { steps: new Map(), results: new Map(), decisions: new Map(), awaiting: null };

export class ToolLedger {
  constructor(
    private readonly redis: HubRedis,
    private readonly queue: Queue,
  ) {}

  /** Everything the job's earlier runs recorded (one HGETALL of the job hash; unreadable entries are skipped). */
  async read(jobId: string): Promise<ToolRecord> {
    const fields = await this.redis.hgetall(this.queue.toKey(jobId));
    const record: ToolRecord = {
      steps: new Map(),
      results: new Map(),
      decisions: new Map(),
      awaiting: awaitingSchema.safeParse(parseRecordedJson(fields[JOB_FIELDS.awaiting] ?? '')).data ?? null,
    };
    for (const [field, value] of Object.entries(fields)) {
      if (!field.startsWith(JOB_FIELDS.toolPrefix)) continue;
      const key = field.slice(JOB_FIELDS.toolPrefix.length);
      const json = parseRecordedJson(value);
      if (/^\d+$/.test(key)) {
        const step = toolStepSchema.safeParse(json);
        if (step.success) record.steps.set(Number(key), step.data);
      } else if (/^\d+:\d+$/.test(key)) {
        const result = toolResultSchema.safeParse(json);
        if (result.success) record.results.set(key, result.data);
      } else if (/^\d+:\d+:approval$/.test(key)) {
        const decision = decisionSchema.safeParse(json);
        if (decision.success) record.decisions.set(key.slice(0, -':approval'.length), decision.data);
      }
    }
    return record;
  }

  /** Records step `step`'s request for tools unless a run did before; returns the recorded one. */
  async recordStep(jobId: string, step: number, message: ToolStep): Promise<ToolStep> {
    return this.setOnce(jobId, `${step}`, message, toolStepSchema);
  }

  /** Records the result of step `step`'s `index`-th call unless a run did before; returns the recorded one. */
  async recordResult(jobId: string, step: number, index: number, result: ToolResult): Promise<ToolResult> {
    return this.setOnce(jobId, `${step}:${index}`, result, toolResultSchema);
  }

  /** The job waits for a decision on this call (the worker then moves it to delayed until `until`). */
  async setAwaiting(jobId: string, awaiting: Awaiting): Promise<void> {
    await this.redis.hset(this.queue.toKey(jobId), JOB_FIELDS.awaiting, JSON.stringify(awaiting));
  }

  /** The call the job waits on, and its decision if any (one HMGET needs the key first: two reads). */
  async awaiting(jobId: string): Promise<{ awaiting: Awaiting; decision: Decision | null } | null> {
    const hash = this.queue.toKey(jobId);
    const awaiting = awaitingSchema.safeParse(parseRecordedJson((await this.redis.hget(hash, JOB_FIELDS.awaiting)) ?? '')).data;
    if (!awaiting) return null;
    const decided = await this.redis.hget(hash, `${JOB_FIELDS.toolPrefix}${awaiting.key}:approval`);
    return { awaiting, decision: decided ? (decisionSchema.safeParse(parseRecordedJson(decided)).data ?? null) : null };
  }

  /** Records a decision on the call the job waits on, unless one was made; returns the one that counts. */
  async decide(jobId: string, key: string, decision: Decision): Promise<Decision> {
    return this.setOnce(jobId, `${key}:approval`, decision, decisionSchema);
  }

  private setOnce<T>(jobId: string, key: string, value: T, schema: z.ZodType<T>): Promise<T> {
    return setFieldOnce(this.redis, this.queue.toKey(jobId), `${JOB_FIELDS.toolPrefix}${key}`, value, schema);
  }
}

/**
 * Sets a field of a job's hash to `value` (JSON) unless it is set; returns what is there: `value`
 * itself when this call set it (not validated again), else the first run's entry if `schema`
 * accepts it, else `value`.
 */
export async function setFieldOnce<T>(redis: HubRedis, hash: string, field: string, value: T, schema: z.ZodType<T>): Promise<T> {
  // One command in the common case. Only when a run got there first is the field read: it is never
  // changed once set, so that read sees the first run's entry (or nothing, the job being gone).
  if ((await redis.hsetnx(hash, field, JSON.stringify(value))) === 1) return value;
  const stored = await redis.hget(hash, field);
  return typeof stored === 'string' ? (schema.safeParse(parseRecordedJson(stored)).data ?? value) : value;
}
