import { z } from 'zod';
import type { HubRedis, RedisClient } from './commands/index.js';
import type { HubKeys } from './keys.js';
import { parseRecordedJson } from './recorded-json.js';

/**
 * A job's feed: its reply as it is written, for callers of `GET /hooks/:name/jobs/:id/stream`. The
 * worker appends events to a Redis Stream per job (`delta` with new text, `reset` when a run
 * starts over after a crash, then `done` with the whole reply or `error`); any API process reads
 * it from any point (the event id a reader saw last, its `Last-Event-ID`), so a reader that
 * reconnects — to the same process or another — resumes where it was. The feed is kept an hour
 * after its last event.
 *
 * Most messages have no reader, so the feed is written only while one watches: a reader sets the
 * job's watch key (`watch`, renewed while it streams, gone `WATCH_TTL_SECONDS` after it stops),
 * and the worker's `FeedWriter` looks for it at paced updates (at most every 200 ms) until it finds
 * it — one EXISTS instead of a stream write — then writes every event from there on. A reader that
 * comes while the reply is being written gets the text so far as its first `delta` (the live
 * reply's deltas start from what the feed last had); one that comes after the last update reads
 * the end from the job itself (the API's stream does so when the feed says nothing).
 *
 * Most of the time nobody reads any feed, so a reader also sets the shard's `feedWatching` key
 * (the same lifetime), and a worker process asks for that at most once per 200 ms for all its
 * jobs of the shard (`anyWatched`): while it is absent a writer asks nothing per job, and a busy
 * shard pays a few EXISTS a second instead of one per message. The price: the first reader of a
 * shard in a while is seen up to 200 ms later than it would be (a reply finished before that is
 * read from the job).
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
/** How long a reader's watch outlives its last renewal (it renews every third of this while it streams). */
export const WATCH_TTL_SECONDS = 30;
/** How often a worker with no reader yet asks again (a reader that comes later waits at most this for text). */
const WATCH_RECHECK_MS = 200;
const FEED_MAX_EVENTS = 10_000;
const entryFieldsSchema = z.tuple([z.literal('e'), z.enum(FEED_EVENTS), z.literal('d'), z.string()]);
const dataSchema = z.record(z.string(), z.unknown());

export class JobFeeds {
  #anyAskedAt = Number.NEGATIVE_INFINITY;
  #anyWatched: Promise<boolean> = Promise.resolve(false);
  /** What the last answer said, once it came (until then the promise is the answer). */
  #anyKnown: boolean | undefined = false;

  constructor(
    private readonly redis: HubRedis,
    private readonly keys: HubKeys,
    private readonly recheckMs = WATCH_RECHECK_MS,
  ) {}

  /** Appends one event; resolves with its id. */
  append(jobId: string, event: FeedEventName, data: Record<string, unknown>): Promise<string> {
    return this.redis.sbFeedAppend(this.keys.feed(jobId), event, JSON.stringify(data), FEED_TTL_SECONDS, FEED_MAX_EVENTS);
  }

  /** A reader streams the job's feed: the worker writes it from its next update on (see the file comment). */
  async watch(jobId: string): Promise<void> {
    await Promise.all([
      this.redis.set(this.keys.feedWatch(jobId), '1', 'EX', WATCH_TTL_SECONDS),
      this.redis.set(this.keys.feedWatching(), '1', 'EX', WATCH_TTL_SECONDS),
    ]);
  }

  /** Whether a reader watches the job's feed now. */
  async watched(jobId: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.feedWatch(jobId))) === 1;
  }

  /**
   * Whether any reader watches a feed of this shard, as Redis said at most `recheckMs` ago (one
   * EXISTS per interval for every job of this process; an error counts as yes): a boolean when
   * that answer has come, the promise of it while it is on its way.
   */
  anyWatched(): boolean | Promise<boolean> {
    if (Date.now() - this.#anyAskedAt >= this.recheckMs) {
      this.#anyAskedAt = Date.now();
      this.#anyKnown = undefined;
      const asked = this.redis.exists(this.keys.feedWatching()).then(
        (n) => n === 1,
        () => true,
      );
      this.#anyWatched = asked;
      void asked.then((watched) => {
        if (this.#anyWatched === asked) this.#anyKnown = watched;
      });
    }
    return this.#anyKnown ?? this.#anyWatched;
  }

  /** The worker's writer of one job's feed (one per run). */
  writer(jobId: string): FeedWriter {
    return new FeedWriter(this, jobId, this.recheckMs);
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
      const data = dataSchema.safeParse(parseRecordedJson(parsed.data[3]));
      return data.success ? [{ id, event: parsed.data[1], data: data.data }] : [];
    });
  }
}

/**
 * One run's writer of a job's feed: `watched()` asks Redis (at most once per `recheckMs`, and only
 * while some reader watches a feed of the shard) until a reader is found, then answers true for
 * the rest of the run without asking again (a reader that reconnects finds its events). A reply
 * whose updates and end come within `recheckMs` costs one EXISTS when readers are about, none
 * otherwise. The answer is a boolean when it needs no Redis reply (most of the time: nobody reads
 * any feed of the shard), so a live reply's update then costs no promise.
 */
export class FeedWriter {
  #watched = false;
  #askedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly feeds: JobFeeds,
    private readonly jobId: string,
    private readonly recheckMs = WATCH_RECHECK_MS,
  ) {}

  watched(): boolean | Promise<boolean> {
    if (this.#watched || Date.now() - this.#askedAt < this.recheckMs) return this.#watched;
    const any = this.feeds.anyWatched();
    if (any === false) return false;
    return this.#ask(any);
  }

  async #ask(any: true | Promise<boolean>): Promise<boolean> {
    if (!(await any)) return false;
    this.#askedAt = Date.now();
    this.#watched = await this.feeds.watched(this.jobId);
    return this.#watched;
  }

  async append(event: FeedEventName, data: Record<string, unknown>): Promise<void> {
    await this.feeds.append(this.jobId, event, data);
  }
}
