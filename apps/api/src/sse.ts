import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { Logger } from '@switchboard/logger';
import { type CancelSignal, isAbort } from '@switchboard/providers';

/**
 * Server-Sent Events out: headers that stop proxies from buffering, one frame per event as soon
 * as it exists, back-pressure respected. JSON.stringify escapes CR and LF, so a payload can
 * never break a frame; event names are this gateway's own constants.
 */
export function openSse(res: ServerResponse): void {
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache',
    'X-Accel-Buffering': 'no',
    Connection: 'keep-alive',
  });
  // No flushHeaders(): the upstream has already answered, so the first event follows at once and
  // carries the headers in the same packet.
}

/** One frame: `event: <name>` first when named, then the data as one JSON line. */
function frame(json: string, name?: string): string {
  return `${name ? `event: ${name}\n` : ''}data: ${json}\n\n`;
}

/**
 * Waits for the client to read (or leave). The wait that loses is cancelled: left behind, its
 * 'close' (or 'drain') and 'error' listeners piled up on the response, one pair per wait, for
 * as long as a slow reader's stream lasted.
 */
export async function drained(res: ServerResponse): Promise<void> {
  const settled = new AbortController();
  const wait = (event: string) =>
    once(res, event, { signal: settled.signal }).catch((err) => {
      if (!settled.signal.aborted) throw err; // an 'error' on the response; the loser's abort is ours
    });
  try {
    await Promise.race([wait('drain'), wait('close')]);
  } finally {
    settled.abort();
  }
}

/** How one kind of stream is framed. */
export interface SseFormat<T> {
  /** The `event:` name of each event (Responses streams name them; chat chunks are unnamed). */
  name?: (event: T) => string;
  /** An event's JSON: JSON.stringify's text (chat chunks: `chunkJson`, which may have it already). */
  json?: (event: T) => string;
  /** Chat streams end with `data: [DONE]`; Responses streams just end. */
  done: boolean;
  /** The events that report `err` once the stream has begun (then the stream is closed). */
  failure: (err: unknown) => T[];
}

export interface SendOptions<T> {
  signal: CancelSignal;
  requestId: string;
  logger: Logger;
  /** Sees each event as it is written (the response cache records them). */
  onEvent?: (event: T) => void;
  /** Told once, when the first event has been written (time to first token). */
  onFirstEvent?: () => void;
}

/**
 * Opens the stream, writes the events as they come — `batches`: those of one upstream read
 * together — and ends it. Resolves true when every event was sent; false when the client left
 * (the upstream is aborted by the signal) or the stream broke, in which case the failure events
 * are sent before the end.
 */
export async function sendEvents<T>(
  res: ServerResponse,
  batches: AsyncIterable<readonly T[]>,
  format: SseFormat<T>,
  options: SendOptions<T>,
): Promise<boolean> {
  openSse(res);
  // The frames of one tick (the events one upstream read brought) go out as one write at its
  // end: nothing waits for later data, and a read of many events costs one write, not many.
  let pending = '';
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending && !res.destroyed) res.write(pending);
    pending = '';
  };
  /** Ends the response with what is still pending in the same write. */
  const end = (last = '') => {
    const text = pending + last;
    pending = '';
    if (!res.destroyed) res.end(text || undefined);
  };
  const json = format.json ?? JSON.stringify;
  const queue = (event: T) => {
    pending += frame(json(event), format.name?.(event));
    if (!scheduled) {
      scheduled = true;
      process.nextTick(flush);
    }
  };
  try {
    let first = options.onFirstEvent;
    for await (const batch of batches) {
      if (res.destroyed) continue; // the signal aborts the upstream; this drains what is left
      for (const event of batch) {
        options.onEvent?.(event);
        queue(event);
      }
      if (first && batch.length) {
        first();
        first = undefined;
      }
      if (res.writableNeedDrain) await drained(res); // the client is behind: wait for it
    }
    const complete = !res.destroyed;
    end(format.done ? 'data: [DONE]\n\n' : '');
    return complete;
  } catch (err) {
    if (options.signal.aborted && isAbort(err)) return false;
    if (!isAbort(err)) options.logger.warn('stream failed', { request_id: options.requestId, error: (err as Error).message });
    for (const event of format.failure(err)) queue(event);
    end();
    return false;
  }
}

/** Sends stored events (a cache hit) as a stream, exactly as a live one is framed. */
export function replayEvents<T>(
  res: ServerResponse,
  events: T[],
  format: SseFormat<T>,
  options: SendOptions<T>,
): Promise<boolean> {
  return sendEvents(res, together(events), format, options);
}

async function* together<T>(events: T[]): AsyncGenerator<T[]> {
  yield events;
}

/** Events that come one at a time, as `sendEvents` takes them: each its own batch. */
export async function* oneEach<T>(events: AsyncIterable<T>): AsyncGenerator<T[]> {
  for await (const event of events) yield [event];
}

/**
 * One named event of a resumable stream: `id:` (what the client sends back as Last-Event-ID),
 * `event:` and one `data:` line of JSON. The id and name are ours (stream ids, fixed names), so
 * neither can hold a line break.
 */
export async function writeNamedEvent(res: ServerResponse, event: { id?: string; event: string; data: unknown }): Promise<void> {
  const id = event.id ? `id: ${event.id}\n` : '';
  await writeRaw(res, `${id}event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`);
}

/** A comment line: keeps proxies and clients from closing a quiet stream. */
export async function writeKeepAlive(res: ServerResponse): Promise<void> {
  await writeRaw(res, ': keep-alive\n\n');
}

async function writeRaw(res: ServerResponse, text: string): Promise<void> {
  if (res.destroyed) return;
  if (!res.write(text)) await drained(res);
}
