import { z } from 'zod';
import type { HubRedis, RedisClient } from './commands/index.js';
import type { HubKeys } from './keys.js';

/**
 * A job's feed: its reply as it is written, for callers of `GET /hooks/:name/jobs/:id/stream`. The
 * worker appends events to a Redis Stream per job (`delta` with new text, `reset` when a run
 * starts over after a crash, then `done` with the whole reply or `error`); any API process reads
 * it from any point (the event id a reader saw last, its `Last-Event-ID`), so a reader that
 * reconnects — to the same process or another — resumes where it was. The feed is kept an hour
 * after its last event.
 */
export const FEED_EVENTS = ['delta', 'reset', 'done', 'error'] as const;
export type FeedEventName = (typeof FEED_EVENTS)[number];

export interface FeedEntry {
  /** The stream id, `<ms>-<seq>`: what a reader sends back as Last-Event-ID. */
  id: string;
  event: FeedEventName;
  data: Record<string, unknown>;
}

/** A stream id as Redis writes them; anything else is no Last-Event-ID of ours. */
export const FEED_ID = /^\d{1,20}-\d{1,20}$/;

const FEED_TTL_SECONDS = 3600;
const FEED_MAX_EVENTS = 10_000;
const entryFieldsSchema = z.tuple([z.literal('e'), z.enum(FEED_EVENTS), z.literal('d'), z.string()]);
const dataSchema = z.record(z.string(), z.unknown());

export class JobFeeds {
  constructor(
    private readonly redis: HubRedis,
    private readonly keys: HubKeys,
  ) {}

  /** Appends one event; resolves with its id. */
  append(jobId: string, event: FeedEventName, data: Record<string, unknown>): Promise<string> {
    return this.redis.sbFeedAppend(this.keys.feed(jobId), event, JSON.stringify(data), FEED_TTL_SECONDS, FEED_MAX_EVENTS);
  }

  /**
   * The events after `after` ('0' for all), waiting up to `blockMs` for one to come. Blocking
   * holds the connection, so `reader` must be a connection of the caller's own.
   */
  async read(reader: RedisClient, jobId: string, after: string, blockMs: number): Promise<FeedEntry[]> {
    const answer = await reader.xread('COUNT', 500, 'BLOCK', blockMs, 'STREAMS', this.keys.feed(jobId), after);
    const entries = answer?.[0]?.[1] ?? [];
    return entries.flatMap(([id, fields]) => {
      const parsed = entryFieldsSchema.safeParse(fields);
      if (!parsed.success) return [];
      const data = dataSchema.safeParse(parseJson(parsed.data[3]));
      return data.success ? [{ id, event: parsed.data[1], data: data.data }] : [];
    });
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
