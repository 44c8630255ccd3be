import type { InboundMessage, LiveProgress } from '@switchboard/protocol';
import type { DeliveryClient } from '../http.js';
import type { Polite } from './send-gate.js';

/**
 * A channel's optional live side: replies shown while the model writes them (streaming), typing
 * or a status while it thinks, Markdown rendered for the platform. A channel without it delivers
 * whole replies with `deliver`, as before.
 *
 * The worker drives one `LiveReply` per message: `thinking()` as the model call starts,
 * `update(text)` with the whole reply so far at most once per `streamIntervalMs` (never two at
 * once), and `finish(reply)` once the reply is complete and recorded. Whatever a reply posts is
 * recorded through `save` as it happens, so a run that follows a crash edits the same messages.
 */
export interface LiveChannel<Config> {
  /**
   * The longest piece of Markdown one streamed message holds, when lower than the channel's
   * `limits.textLength` (Slack takes at most 12,000 characters per streaming call).
   */
  readonly textLength?: number;
  /** True when the reply is also a feed the caller reads (`GET /hooks/:name/jobs/:id/stream`). */
  readonly feed?: boolean;
  open(context: LiveContext<Config>): LiveReply;
}

export interface LiveReply {
  /**
   * The model is thinking: typing / a status, renewed by the channel until the first text or
   * `close()`. With `activity` (a tool's name) the status says what is being done where the
   * platform shows words (Slack: "is using search…"); elsewhere it stays typing.
   */
  thinking(activity?: string): void;
  /** The reply so far (Markdown, always the whole text, growing). */
  update(text: string): Promise<void>;
  /**
   * The complete reply, already recorded: leaves the platform holding exactly it (edits what
   * earlier updates or runs showed, posts the rest, removes what is left over).
   *
   * @returns How many pieces (messages) the reply has.
   */
  finish(reply: FinalReply): Promise<number>;
  /** Stops timers (typing). Safe to call more than once. */
  close(): void;
}

export interface FinalReply {
  text: string;
  model: string;
  /** Unix seconds when it was generated. */
  created: number;
}

/** Events of a job's feed, in order: deltas (a `reset` first when a run starts over), then `done` or `error`. */
export type FeedEvent = 'delta' | 'reset' | 'done' | 'error';

/** Where a live reply is written for callers to read (a Redis Stream per job, see @switchboard/hub). */
export interface JobFeed {
  /**
   * Whether a caller reads the feed: nothing is written before one does (true once, true for the
   * run). A boolean when known without asking Redis (most of the time), else its promise.
   */
  watched(): boolean | Promise<boolean>;
  append(event: FeedEvent, data: Record<string, unknown>): Promise<void>;
}

/** What the worker knows of one message when its live reply opens. */
export interface LiveJob {
  message: InboundMessage;
  jobId: string;
  /** Unix ms when the API accepted the message (Discord's interaction token lives 15 minutes from about then). */
  receivedAt: number;
  /** What earlier runs of the job posted; null when nothing. */
  earlier: LiveProgress | null;
  /** Pieces of the final reply that earlier runs already left holding their final text. */
  delivered: number;
  /** True when an earlier run of the job may have shown another generation of the reply. */
  rerun: boolean;
  /** Records progress in the job (and, with `delivered`, how many pieces hold their final text). */
  save(progress: LiveProgress, delivered?: number): Promise<void>;
  feed?: JobFeed | undefined;
  /** Shutdown: waits for a send turn end at once. */
  signal?: AbortSignal | undefined;
  /** Debug notes (a refused streaming method, a fallback taken); never holds a secret. */
  log?: ((message: string, meta?: Record<string, unknown>) => void) | undefined;
}

export interface LiveContext<Config> extends LiveJob {
  hook: string;
  config: Config;
  /** The hook's keep-alive pool. */
  http: DeliveryClient;
  /** The reply cut into the pieces one message holds (Markdown-aware). */
  split(text: string): string[];
  /** Turns of this message's target in the shared limiter. */
  polite: Polite;
  /** Sends a piece of the final reply the channel's plain way (`deliver`). */
  deliver(text: string, index: number, reply: FinalReply): Promise<void>;
}
