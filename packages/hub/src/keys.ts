/**
 * Every key of the hook pipeline, in one place. They all share one hash slot: BullMQ keeps a
 * queue in one slot, and the pipeline's scripts touch the queue's job hashes together with the
 * ordering and memory keys, so on Redis Cluster the prefix is a hash tag (`{switchboard}`, see the
 * config's `keyPrefix`). On a single Redis it is the plain prefix, which keeps the names earlier
 * releases wrote: an upgrade finds its queued jobs and conversation memory where they were.
 */
export interface HubKeys {
  /** BullMQ's `prefix` option for the hub's queues. */
  readonly bullPrefix: string;
  /** Claimed when a message with a platform dedupe key is first queued. */
  dedupe(jobId: string): string;
  /** The conversation's line: ids of its unfinished messages, oldest first. */
  order(conversation: string): string;
  /** The conversation's memory: JSON chat messages, oldest first. */
  memory(conversation: string): string;
  /** A job's feed: a Redis Stream of its reply as it is written (see job-feed.ts). */
  feed(jobId: string): string;
  /** Set while a reader streams the job's feed: the worker writes the feed only then (job-feed.ts). */
  feedWatch(jobId: string): string;
  /** Set while any reader streams a feed of this shard: a worker looks for `feedWatch` keys only then (job-feed.ts). */
  feedWatching(): string;
}

export function hubKeys(base: string): HubKeys {
  return {
    bullPrefix: `${base}:bull`,
    dedupe: (jobId) => `${base}:dedupe:${jobId}`,
    order: (conversation) => `${base}:order:${conversation}`,
    memory: (conversation) => `${base}:conversation:${conversation}`,
    feed: (jobId) => `${base}:feed:${jobId}`,
    feedWatch: (jobId) => `${base}:feed-watch:${jobId}`,
    feedWatching: () => `${base}:feed-watching`,
  };
}

/**
 * Fields the pipeline adds to a BullMQ job's own hash (`queue.toKey(jobId)`), so they live and
 * are removed with the job, and one script can change them together with the conversation's
 * keys. BullMQ reads only its own fields and leaves these alone.
 */
export const JOB_FIELDS = {
  /** The reply, JSON `{text, model, created}`: set once, by the first attempt that got one. */
  reply: 'sbReply',
  /** How many pieces of the reply the platform has. */
  delivered: 'sbDelivered',
  /** Set when the job left its conversation's line for good (answered and delivered, or failed). */
  done: 'sbDone',
  /**
   * A streamed reply's progress on its platform, JSON (`@switchboard/protocol` live-progress):
   * the messages posted and how much of the reply each holds, written as they are posted.
   */
  live: 'sbLive',
  /**
   * Set by an operator's retry of a job that failed for good (hub/replay.ts): its next run takes a
   * new turn in its conversation's line instead of taking `done` as final (ordering.ts `rejoin`).
   */
  rejoin: 'sbRejoin',
  /**
   * The tool loop's record, a field per entry (tool-ledger.ts): `sbTool:<step>` the model's
   * assistant message asking for tools, JSON; `sbTool:<step>:<i>` the result of its i-th call, JSON.
   * Each is set once, before the loop goes on, so a run after a crash replays them.
   */
  toolPrefix: 'sbTool:',
  /**
   * The tool call waiting for approval, JSON `{key, tool, arguments, until, approvers?, prompt?}` (tool-ledger.ts); its
   * decision is the field `sbTool:<step>:<i>:approval`, set once.
   */
  awaiting: 'sbAwaiting',
  /**
   * A voice note's transcript, JSON `{text, memo}`, a field per file: `sbHeard:<index>` for the
   * message's `index`-th file (transcripts.ts). Set once, after a transcription succeeded, so a
   * retry neither downloads nor transcribes it again.
   */
  heardPrefix: 'sbHeard:',
} as const;
