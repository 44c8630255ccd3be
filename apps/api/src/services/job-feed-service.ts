import type { ServerResponse } from 'node:http';
import type { Hook } from '@switchboard/channels';
import type { HookConfig } from '@switchboard/config';
import { FEED_ID, type FeedEntry, type Hub, readJobView, WATCH_TTL_SECONDS } from '@switchboard/hub';
import { invalidRequest, serviceUnavailable, toErrorResponse } from '@switchboard/protocol';
import { duplicateClient } from '@switchboard/state';
import type { AppDeps } from '../deps.js';
import { openSse, writeKeepAlive, writeNamedEvent } from '../sse.js';
import { readJob } from './job-service.js';

/** A stream is closed after this long; the client reconnects with Last-Event-ID and goes on. */
export const FEED_MAX_MS = 10 * 60_000;
/** How long one read waits for an event: then the job's state is looked at and a keep-alive sent. */
const LIVE_WAIT_MS = 2_000;
/** A hook that does not stream writes no feed: its job's state is looked at more often. */
const WHOLE_WAIT_MS = 500;
/**
 * A live hook's first read waits this long at most: a worker may learn of the first reader of a
 * shard up to 200 ms late (hub job-feed.ts), and a reply that ended before is read from the job.
 */
const FIRST_WAIT_MS = 300;

/** The `Last-Event-ID` a client resumes from ('0': from the start), or a 400. */
export function resumeFrom(header: string): string {
  const value = header.trim();
  if (!value) return '0';
  if (!FEED_ID.test(value))
    throw invalidRequest("Invalid 'Last-Event-ID': expected an event id this stream sent.", 'Last-Event-ID');
  return value;
}

/**
 * Streams a job's feed as Server-Sent Events: each event as the worker wrote it (`delta`,
 * `reset`, then `done` or `error`), with its stream id as the event id. A hook that does not
 * stream, or a job whose feed has expired, gets `done` (or `error`) from the job itself once it is
 * over. Every wait is bounded; a client that hangs up ends it quietly; Redis going away ends it
 * with an `error` event.
 */
export async function streamJobFeed(
  deps: Pick<AppDeps, 'readyHub' | 'redis' | 'logger'>,
  res: ServerResponse,
  hook: Hook<HookConfig>,
  jobId: string,
  after: string,
  signal: AbortSignal,
  /** Called once the answer is sure to be a stream (Koa must then leave the response alone). */
  streaming: () => void,
): Promise<void> {
  const hub = (await deps.readyHub()).forJob(jobId);
  const atStart = await readJob(deps, hook.name, jobId); // a 404 in the JSON shape, before any event
  streaming();
  // Blocking reads hold a connection: each stream reads on its own, closed when it ends.
  const reader = duplicateClient(deps.redis, { enableOfflineQueue: true, maxRetriesPerRequest: 1 });
  reader.on('error', () => {});
  const stop = () => reader.disconnect();
  signal.addEventListener('abort', stop, { once: true });
  openSse(res);
  const waitMs = hook.openLive ? LIVE_WAIT_MS : WHOLE_WAIT_MS;
  const deadline = Date.now() + FEED_MAX_MS;
  let last = after;
  let watchedAt = 0;
  // A reader from the start that came before the end: if the feed never says anything (the worker
  // had not seen the reader yet), the reply from the job comes as one delta, then done.
  const whole = after === '0' && hook.openLive !== undefined && !isOver(atStart.status);
  let reads = 0;
  try {
    while (!signal.aborted && Date.now() < deadline) {
      // The worker writes the feed only while a reader watches it (hub job-feed.ts).
      if (hook.openLive && Date.now() - watchedAt >= (WATCH_TTL_SECONDS * 1000) / 3) {
        await hub.feeds.watch(jobId);
        watchedAt = Date.now();
      }
      // Never 0: a BLOCK of 0 would wait for ever.
      const wait = reads++ === 0 && hook.openLive ? FIRST_WAIT_MS : waitMs;
      const entries = await hub.feeds.read(reader, jobId, last, Math.max(1, Math.min(wait, deadline - Date.now())));
      for (const entry of entries) {
        await writeNamedEvent(res, entry);
        last = entry.id;
        if (isEnd(entry)) return;
      }
      if (entries.length === 0 && (await endedWithoutFeed(hub, res, hook.name, jobId, whole && last === after))) return;
      if (entries.length === 0) await writeKeepAlive(res);
    }
  } catch (err) {
    if (signal.aborted) return;
    deps.logger.warn('job stream failed', { hook: hook.name, job_id: jobId, error: (err as Error).message });
    const { body } = toErrorResponse(
      serviceUnavailable('The job stream was interrupted; reconnect with Last-Event-ID.', 'queue_unavailable'),
    );
    await writeNamedEvent(res, { event: 'error', data: body });
  } finally {
    signal.removeEventListener('abort', stop);
    stop();
    if (!res.destroyed) res.end();
  }
}

const isEnd = (entry: FeedEntry) => entry.event === 'done' || entry.event === 'error';
const isOver = (status: string) => status === 'completed' || status === 'failed';

/**
 * The job is over but its feed says nothing of it (a hook that does not stream, an expired feed, a
 * live reply the worker finished before it saw this reader): its end from the job, with the whole
 * reply as a delta first when `asDelta` (a reader that expects deltas adding up to the reply).
 */
async function endedWithoutFeed(hub: Hub, res: ServerResponse, hook: string, jobId: string, asDelta: boolean): Promise<boolean> {
  const view = await readJobView(hub, hook, jobId);
  if (view?.status === 'completed') {
    if (asDelta && view.reply) await writeNamedEvent(res, { event: 'delta', data: { text: view.reply } });
    await writeNamedEvent(res, { event: 'done', data: { text: view.reply ?? '' } });
    return true;
  }
  if (!view || view.status === 'failed') {
    await writeNamedEvent(res, { event: 'error', data: { message: view?.error ?? 'The job no longer exists.' } });
    return true;
  }
  return false;
}
