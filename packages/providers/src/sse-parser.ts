/** One Server-Sent Event as read from an upstream. */
export interface SseEvent {
  event: string | null;
  data: string;
}

/**
 * Reads an SSE byte stream as it arrives (WHATWG rules: `\n`, `\r\n` or `\r` line ends, `:`
 * comments, multi-line `data`), yielding each event when its blank line comes in.
 */
export async function* parseSse(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event: string | null = null;
  let data: string[] = [];

  const takeLine = (line: string): SseEvent | null => {
    if (line === '') {
      if (data.length === 0 && event === null) return null;
      const out = { event, data: data.join('\n') };
      event = null;
      data = [];
      return out;
    }
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    return null;
  };

  const lineEnd = /\r\n|\r|\n/g;
  for await (const piece of body) {
    buffer += typeof piece === 'string' ? piece : decoder.decode(piece, { stream: true });
    let start = 0;
    lineEnd.lastIndex = 0;
    for (let match = lineEnd.exec(buffer); match; match = lineEnd.exec(buffer)) {
      // A trailing '\r' may be the first half of '\r\n': wait for the next piece.
      if (match[0] === '\r' && match.index === buffer.length - 1) break;
      const out = takeLine(buffer.slice(start, match.index));
      start = match.index + match[0].length;
      if (out) yield out;
    }
    buffer = buffer.slice(start);
  }
  buffer += decoder.decode();
  if (buffer) {
    const out = takeLine(buffer);
    if (out) yield out;
  }
  const last = takeLine('');
  if (last) yield last;
}
