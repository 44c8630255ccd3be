import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { toErrorResponse } from '@switchboard/protocol';

/**
 * Server-Sent Events out: headers that stop proxies from buffering, one `data:` frame per
 * event as soon as it exists, back-pressure respected. JSON.stringify escapes CR and LF, so a
 * payload can never break a frame.
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
 * Writes one event. Writes made in the same tick (events that arrived in one upstream read) are
 * corked into one packet and sent at the end of that tick: nothing waits for later data.
 */
export async function writeEvent(res: ServerResponse, data: unknown): Promise<void> {
  if (res.destroyed) return;
  if (!res.writableCorked) {
    res.cork();
    process.nextTick(() => res.uncork());
  }
  if (!res.write(`data: ${JSON.stringify(data)}\n\n`)) {
    await Promise.race([once(res, 'drain'), once(res, 'close')]);
  }
}

/** `[DONE]` and the end of the response. */
export function endSse(res: ServerResponse): void {
  if (!res.destroyed) res.end('data: [DONE]\n\n');
}

/** An error after the stream began: one `data: {"error":…}` event, then the stream is closed. */
export function failSse(res: ServerResponse, err: unknown): void {
  if (res.destroyed) return;
  res.end(`data: ${JSON.stringify(toErrorResponse(err).body)}\n\n`);
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
  if (!res.write(text)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
}
