import { type LiveProgress, readLiveProgress } from '@switchboard/protocol';
import type { Queue } from 'bullmq';
import { z } from 'zod';
import type { HubRedis } from './commands/index.js';
import { type HubKeys, JOB_FIELDS } from './keys.js';
import { parseRecordedJson } from './recorded-json.js';

/**
 * One message's exchange with the model, and the conversation memory it feeds. The reply is
 * recorded on the job's hash together with the memory append, in one script, before delivery
 * starts: a job that runs again (a retry, a worker that died) delivers the recorded reply
 * instead of asking the model again, and the memory holds each exchange exactly once. Delivery
 * progress (pieces the platform has) is recorded there too, so a retry never sends a piece twice.
 */
export const memoryMessageSchema = z.object({ role: z.enum(['user', 'assistant']), content: z.string() });
export type MemoryMessage = z.infer<typeof memoryMessageSchema>;
const historySchema = z.array(memoryMessageSchema);
/** `memoryMessageSchema` without zod's copy: a message the schema would return unchanged (nothing else in it). */
const isMemoryMessage = (value: unknown): value is MemoryMessage => {
  if (typeof value !== 'object' || value === null) return false;
  const { role, content } = value as Record<string, unknown>;
  return (role === 'user' || role === 'assistant') && typeof content === 'string' && Object.keys(value).length === 2;
};

export const replySchema = z.object({ text: z.string(), model: z.string(), created: z.number() });
export type Reply = z.infer<typeof replySchema>;

/** What earlier runs of a job got done. */
export interface ExchangeState {
  reply: Reply | null;
  /** Pieces of the reply the platform already has. */
  delivered: number;
  /** The job left its conversation's line for good in an earlier run. */
  done: boolean;
  /** What an earlier run of a streamed reply posted; null when nothing. */
  live: LiveProgress | null;
  /** An operator retried the job after it failed for good: it rejoins its line (ordering.ts). */
  retried: boolean;
}

export const FRESH_EXCHANGE: ExchangeState = { reply: null, delivered: 0, done: false, live: null, retried: false };

export interface MemoryOptions {
  /** Messages kept per conversation. */
  maxMessages: number;
  /** Memory lifetime after its last exchange, seconds. */
  ttlSeconds: number;
}

export class Exchange {
  constructor(
    private readonly redis: HubRedis,
    private readonly keys: HubKeys,
    private readonly queue: Queue,
    private readonly memory: MemoryOptions,
  ) {}

  /** The conversation's remembered messages, oldest first; unreadable entries are skipped. */
  async history(conversation: string): Promise<MemoryMessage[]> {
    const items = await this.redis.lrange(this.keys.memory(conversation), -this.memory.maxMessages, -1);
    if (items.length === 0) return [];
    // One parse for the whole memory, taken as it is when every entry is a plain message (what the
    // exchange script writes); else through the schema, and entry by entry only when something in it is unreadable.
    const parsed = parseRecordedJson(`[${items.join(',')}]`);
    if (Array.isArray(parsed) && parsed.every(isMemoryMessage)) return parsed;
    const all = historySchema.safeParse(parsed);
    if (all.success) return all.data;
    return items.flatMap((item) => {
      const parsed = memoryMessageSchema.safeParse(parseRecordedJson(item));
      return parsed.success ? [parsed.data] : [];
    });
  }

  /** What earlier runs of the job did (only a job that ran before can have done anything). */
  async state(jobId: string): Promise<ExchangeState> {
    const [reply, delivered, done, live, rejoin] = await this.redis.hmget(
      this.queue.toKey(jobId),
      JOB_FIELDS.reply,
      JOB_FIELDS.delivered,
      JOB_FIELDS.done,
      JOB_FIELDS.live,
      JOB_FIELDS.rejoin,
    );
    return {
      reply: readReply(reply),
      delivered: Number(delivered ?? 0) || 0,
      done: done === '1',
      live: readLiveProgress(live),
      retried: rejoin === '1',
    };
  }

  /**
   * Records `reply` unless one was recorded before, appending the exchange to memory in the same
   * step; returns the reply to deliver, which is the first one recorded.
   *
   * @param options.remember - false for a job of an older release that already stored its exchange.
   * @param options.memoryText - what memory keeps as the assistant's turn, when not the reply's text
   *   (the reply preceded by a compact note of the tools it used).
   */
  async record(
    jobId: string,
    conversation: string,
    prompt: string,
    reply: Reply,
    options: { remember?: boolean; memoryText?: string } = {},
  ): Promise<Reply> {
    const remember = options.remember ?? true;
    const recorded = await this.redis.sbExchangeRecord(
      this.queue.toKey(jobId),
      this.keys.memory(conversation),
      JSON.stringify(reply),
      JSON.stringify({ role: 'user', content: prompt } satisfies MemoryMessage),
      JSON.stringify({ role: 'assistant', content: options.memoryText ?? reply.text } satisfies MemoryMessage),
      this.memory.maxMessages,
      this.memory.ttlSeconds,
      remember ? '1' : '0',
    );
    // This run's reply was the one recorded (the script says 1): nothing to read back.
    if (recorded === 1) return { text: reply.text, model: reply.model, created: reply.created };
    return readReply(recorded) ?? reply;
  }

  /**
   * Keeps `text` in the conversation's memory as a user message with no answer (a group message
   * not addressed to the bot, `groupContext` on), once per job however often it runs: the job's
   * reply field is set to an empty reply in the same step.
   */
  async remember(jobId: string, conversation: string, text: string): Promise<void> {
    await this.redis.sbExchangeRecord(
      this.queue.toKey(jobId),
      this.keys.memory(conversation),
      JSON.stringify({ text: '', model: '', created: 0 } satisfies Reply),
      JSON.stringify({ role: 'user', content: text } satisfies MemoryMessage),
      '',
      this.memory.maxMessages,
      this.memory.ttlSeconds,
      '1',
    );
  }

  /** Records that the platform has the first `count` pieces. */
  async delivered(jobId: string, count: number): Promise<void> {
    await this.redis.hset(this.queue.toKey(jobId), JOB_FIELDS.delivered, count);
  }

  /**
   * Records a streamed reply's progress as it happens (and, with `delivered`, how many pieces now
   * hold their final text), so a run that follows a crash edits the same messages.
   */
  async saveLive(jobId: string, progress: LiveProgress, delivered?: number): Promise<void> {
    const fields: (string | number)[] = [JOB_FIELDS.live, JSON.stringify(progress)];
    if (delivered !== undefined) fields.push(JOB_FIELDS.delivered, delivered);
    await this.redis.hset(this.queue.toKey(jobId), ...fields);
  }

  /** Forgets the conversation (the `reset` action). */
  async forget(conversation: string): Promise<void> {
    await this.redis.del(this.keys.memory(conversation));
  }
}

/** The fields a job's release records: it is done, with this many pieces delivered. */
export function finalFields(delivered: number): Record<string, number> {
  return { [JOB_FIELDS.done]: 1, [JOB_FIELDS.delivered]: delivered };
}

export function readReply(json: string | null | undefined): Reply | null {
  if (!json) return null;
  const parsed = replySchema.safeParse(parseRecordedJson(json));
  return parsed.success ? parsed.data : null;
}
