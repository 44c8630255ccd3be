import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { Logger } from '@switchboard/logger';
import { isAbort } from '@switchboard/providers';

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

/**
 * Writes one event (`event: <name>` first when named). Writes made in the same tick (events that
 * arrived in one upstream read) are corked into one packet and sent at the end of that tick:
 * nothing waits for later data. Returns a promise only when the client is behind (back-pressure),
 * so an event costs no promise of its own.
 */
export function writeEvent(res: ServerResponse, data: unknown, name?: string): Promise<void> | undefined {
  if (res.destroyed) return undefined;
  if (!res.writableCorked) {
    res.cork();
    process.nextTick(uncork, res);
  }
  return res.write(`${name ? `event: ${name}\n` : ''}data: ${JSON.stringify(data)}\n\n`) ? undefined : drained(res);
}

function uncork(res: ServerResponse): void {
  res.uncork();
}

async function drained(res: ServerResponse): Promise<void> {
  await Promise.race([once(res, 'drain'), once(res, 'close')]);
}

/** How one kind of stream is framed. */
export interface SseFormat<T> {
  /** The `event:` name of each event (Responses streams name them; chat chunks are unnamed). */
  name?: (event: T) => string;
  /** Chat streams end with `data: [DONE]`; Responses streams just end. */
  done: boolean;
  /** The events that report `err` once the stream has begun (then the stream is closed). */
  failure: (err: unknown) => T[];
}

export interface SendOptions<T> {
  signal: AbortSignal;
  requestId: string;
  logger: Logger;
  /** Sees each event as it is written (the response cache records them). */
  onEvent?: (event: T) => void;
  /** Told once, when the first event has been written (time to first token). */
  onFirstEvent?: () => void;
}

/**
 * Opens the stream, writes `events` as they come and ends it. Resolves true when every event was
 * sent; false when the client left (the upstream is aborted by the signal) or the stream broke,
 * in which case the failure events are sent before the end.
 */
export async function sendEvents<T>(
  res: ServerResponse,
  events: AsyncIterable<T>,
  format: SseFormat<T>,
  options: SendOptions<T>,
): Promise<boolean> {
  openSse(res);
  try {
    let first = options.onFirstEvent;
    for await (const event of events) {
      options.onEvent?.(event);
      const behind = writeEvent(res, event, format.name?.(event));
      if (behind) await behind;
      if (first) {
        first();
        first = undefined;
      }
    }
    const complete = !res.destroyed;
    if (complete) res.end(format.done ? 'data: [DONE]\n\n' : undefined);
    return complete;
  } catch (err) {
    if (options.signal.aborted && isAbort(err)) return false;
    if (!isAbort(err)) options.logger.warn('stream failed', { request_id: options.requestId, error: (err as Error).message });
    for (const event of format.failure(err)) await writeEvent(res, event, format.name?.(event));
    if (!res.destroyed) res.end();
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
  return sendEvents(res, fromArray(events), format, options);
}

async function* fromArray<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
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
