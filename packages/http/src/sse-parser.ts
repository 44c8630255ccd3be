import { isAscii } from 'node:buffer';
import { TextDecoder } from 'node:util';

/** One Server-Sent Event as read from an upstream or an MCP server. */
export interface SseEvent {
  event: string | null;
  data: string;
}

/**
 * Reads an SSE byte stream piece by piece (WHATWG rules: `\n`, `\r\n` or `\r` line ends, `:`
 * comments, multi-line `data`, `id` and `retry` kept on the decoder): `push` returns the events a piece completes, at once and in one
 * call, so a reader handles everything one network read brought before it awaits the next.
 */
export class SseDecoder {
  /**
   * For pieces that are not ASCII, made on the first (ICU's converter: some 1 µs to make, 0.3 µs a
   * piece). `ignoreBOM`: the stream's one leading BOM is dropped by `#text`, which also sees the
   * pieces read without it.
   */
  #decoder: TextDecoder | undefined;
  /** No bytes of a character held back in `#decoder` (its last piece ended on an ASCII byte). */
  #clean = true;
  /** Nothing decoded yet: a leading U+FEFF (the BOM) is still to be dropped. */
  #first = true;
  #buffer = '';
  #event: string | null = null;
  /** The event's data lines so far, joined by `\n` (null before the first). */
  #data: string | null = null;
  /** The `id` field read so far (WHATWG's "last event ID buffer"): it becomes `lastEventId` when its event is complete. */
  #id: string | undefined;
  /**
   * The id of the last whole event (WHATWG's last event ID: it outlives its event), for a
   * reconnection's `Last-Event-ID`. Set at the event's blank line, not at its `id` line: a stream
   * broken in the middle of an event resumes from the one before, so that event is sent again.
   */
  lastEventId: string | undefined;
  /** The last `retry` field read: how long the server asks a client to wait before reconnecting. */
  retryMs: number | undefined;

  /** The events whose blank line is in `piece` (an empty array while an event is incomplete). */
  push(piece: Uint8Array | string): SseEvent[] {
    const buffer = this.#buffer + (typeof piece === 'string' ? piece : this.#text(piece));
    const events: SseEvent[] = [];
    // The next line end found with indexOf (native), not a loop over every character: the
    // next '\n' and the next '\r' at or after `start`, -1 once there is none left.
    let start = 0;
    let lf = buffer.indexOf('\n');
    let cr = buffer.indexOf('\r');
    for (;;) {
      if (lf !== -1 && lf < start) lf = buffer.indexOf('\n', start);
      if (cr !== -1 && cr < start) cr = buffer.indexOf('\r', start);
      const i = cr === -1 || (lf !== -1 && lf < cr) ? lf : cr;
      if (i === -1) break;
      const isCr = i === cr;
      // A trailing '\r' may be the first half of '\r\n': wait for the next piece.
      if (isCr && i === buffer.length - 1) break;
      this.#line(buffer.slice(start, i), events);
      start = isCr && buffer.charCodeAt(i + 1) === 10 ? i + 2 : i + 1;
    }
    this.#buffer = start === 0 ? buffer : buffer.slice(start);
    return events;
  }

  /** The stream is over: what the last piece left (an event without its blank line counts). */
  end(): SseEvent[] {
    const events: SseEvent[] = [];
    const rest = this.#buffer + (this.#clean ? '' : this.#bomless(this.#decoder!.decode()));
    this.#buffer = '';
    if (rest) this.#line(rest, events);
    this.#line('', events);
    return events;
  }

  /**
   * A piece as UTF-8 text, as one TextDecoder over the whole stream would give it: an ASCII piece
   * (the usual one: JSON escapes what is not) read as Latin-1, a one-byte copy, when no character
   * is half read; any other through the decoder, which keeps a character split across pieces.
   */
  #text(piece: Uint8Array): string {
    if (this.#clean && isAscii(piece)) {
      if (piece.length === 0) return '';
      this.#first = false; // ASCII: no BOM
      const bytes = Buffer.isBuffer(piece) ? piece : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
      return bytes.toString('latin1');
    }
    this.#decoder ??= new TextDecoder('utf-8', { ignoreBOM: true });
    const text = this.#decoder.decode(piece, { stream: true });
    this.#clean = piece.length > 0 ? piece[piece.length - 1]! < 0x80 : this.#clean;
    return this.#bomless(text);
  }

  /** The text with the stream's leading BOM dropped (WHATWG's UTF-8 decode: only at the very start). */
  #bomless(text: string): string {
    if (!this.#first || text === '') return text;
    this.#first = false;
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }

  #line(line: string, events: SseEvent[]): void {
    if (line === '') {
      this.lastEventId = this.#id;
      if (this.#data === null && this.#event === null) return;
      events.push({ event: this.#event, data: this.#data ?? '' });
      this.#event = null;
      this.#data = null;
      return;
    }
    if (line.charCodeAt(0) === 58 /* : */) return;
    if (line.startsWith('data:')) {
      // The usual line, read without slicing out its field name.
      this.#addData(line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5));
      return;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') this.#addData(value);
    else if (field === 'event') this.#event = value;
    else if (field === 'id' && !value.includes('\0')) this.#id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.retryMs = Number(value);
  }

  #addData(value: string): void {
    this.#data = this.#data === null ? value : `${this.#data}\n${value}`;
  }
}
