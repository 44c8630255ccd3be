import type { Queue } from 'bullmq';
import { z } from 'zod';
import type { HubRedis } from './commands/index.js';
import { JOB_FIELDS } from './keys.js';

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

/** What earlier runs recorded: steps by number, results by `<step>:<i>`. */
export interface ToolRecord {
  steps: Map<number, ToolStep>;
  results: Map<string, ToolResult>;
}

export const EMPTY_TOOL_RECORD: ToolRecord = { steps: new Map(), results: new Map() };

export class ToolLedger {
  constructor(
    private readonly redis: HubRedis,
    private readonly queue: Queue,
  ) {}

  /** Everything the job's earlier runs recorded (one HGETALL of the job hash; unreadable entries are skipped). */
  async read(jobId: string): Promise<ToolRecord> {
    const fields = await this.redis.hgetall(this.queue.toKey(jobId));
    const record: ToolRecord = { steps: new Map(), results: new Map() };
    for (const [field, value] of Object.entries(fields)) {
      if (!field.startsWith(JOB_FIELDS.toolPrefix)) continue;
      const key = field.slice(JOB_FIELDS.toolPrefix.length);
      const json = parseJson(value);
      if (/^\d+$/.test(key)) {
        const step = toolStepSchema.safeParse(json);
        if (step.success) record.steps.set(Number(key), step.data);
      } else if (/^\d+:\d+$/.test(key)) {
        const result = toolResultSchema.safeParse(json);
        if (result.success) record.results.set(key, result.data);
      }
    }
    return record;
  }

  /** Records step `step`'s request for tools unless a run did before; returns the recorded one. */
  async recordStep(jobId: string, step: number, message: ToolStep): Promise<ToolStep> {
    const recorded = await this.setOnce(jobId, `${step}`, message);
    return toolStepSchema.safeParse(recorded).data ?? message;
  }

  /** Records the result of step `step`'s `index`-th call unless a run did before; returns the recorded one. */
  async recordResult(jobId: string, step: number, index: number, result: ToolResult): Promise<ToolResult> {
    const recorded = await this.setOnce(jobId, `${step}:${index}`, result);
    return toolResultSchema.safeParse(recorded).data ?? result;
  }

  private async setOnce(jobId: string, key: string, value: unknown): Promise<unknown> {
    const hash = this.queue.toKey(jobId);
    const field = `${JOB_FIELDS.toolPrefix}${key}`;
    // One round trip, one key: set if absent, then read what is there (this value or the first run's).
    const results = await this.redis.multi().hsetnx(hash, field, JSON.stringify(value)).hget(hash, field).exec();
    const stored = results?.[1]?.[1];
    return typeof stored === 'string' ? parseJson(stored) : value;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
