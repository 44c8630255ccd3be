/** One event of a Server-Sent Events stream, as a browser's EventSource would see it. */
export interface SseEvent {
  id?: string;
  event: string;
  data: Record<string, unknown>;
}

/**
 * Reads an SSE response event by event (`id:`, `event:`, `data:` lines, a blank line ends one);
 * comments (`: keep-alive`) are skipped. Stops after `until` returns true, or at the end.
 */
export async function readSse(response: Response, until: (event: SseEvent) => boolean = () => false): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return events;
      buffer += value;
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const event = parseEvent(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (event) {
          events.push(event);
          if (until(event)) return events;
        }
        end = buffer.indexOf('\n\n');
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

function parseEvent(block: string): SseEvent | null {
  const event: Partial<SseEvent> = { event: 'message' };
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const [field, ...rest] = line.split(': ');
    const value = rest.join(': ');
    if (field === 'id') event.id = value;
    else if (field === 'event') event.event = value;
    else if (field === 'data') event.data = JSON.parse(value);
  }
  return event.data ? (event as SseEvent) : null;
}
