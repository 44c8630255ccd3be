import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SseDecoder, type SseEvent } from './sse-parser.js';

/** Every event of the stream, in order, whatever batches the reads made. */
async function* parseSse(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseEvent> {
  const decoder = new SseDecoder();
  for await (const piece of body) yield* decoder.push(piece);
  yield* decoder.end();
}

async function collect(pieces: string[]) {
  const encoder = new TextEncoder();
  const events = [];
  for await (const event of parseSse(
    (async function* () {
      for (const piece of pieces) yield encoder.encode(piece);
    })(),
  ))
    events.push(event);
  return events;
}

describe('the SSE decoder', () => {
  it('yields one event per blank-line-terminated block', async () => {
    expect(await collect(['data: a\n\ndata: b\n\n'])).toEqual([
      { event: null, data: 'a' },
      { event: null, data: 'b' },
    ]);
  });

  it('reassembles events split across reads, even inside a CRLF pair and a multi-byte character', async () => {
    const bytes = 'event: delta\r\ndata: {"t":"é"}\r\n\r\n';
    const encoded = new TextEncoder().encode(bytes);
    const events = [];
    for await (const event of parseSse(
      (async function* () {
        for (let i = 0; i < encoded.length; i++) yield encoded.slice(i, i + 1);
      })(),
    ))
      events.push(event);
    expect(events).toEqual([{ event: 'delta', data: '{"t":"é"}' }]);
  });

  it('joins multi-line data with newlines and skips comments', async () => {
    expect(await collect([': keep-alive\n', 'data: one\ndata: two\n\n'])).toEqual([{ event: null, data: 'one\ntwo' }]);
  });

  it('reads a data field with or without its space, empty, or without a colon, as WHATWG says', async () => {
    expect(await collect(['data:x\ndata:  y\ndata:\ndata\ndata: z\n\n', 'event: ping\n\n'])).toEqual([
      { event: null, data: 'x\n y\n\n\nz' },
      { event: 'ping', data: '' },
    ]);
  });

  it('accepts a lone CR as a line end', async () => {
    expect(await collect(['data: x\r\rdata: y\r\r'])).toEqual([
      { event: null, data: 'x' },
      { event: null, data: 'y' },
    ]);
  });

  it("keeps the last event id, even from an event without data, and the server's retry", () => {
    const decoder = new SseDecoder();
    expect(decoder.push('id: 7\nretry: 1500\n\n')).toEqual([]);
    expect(decoder.lastEventId).toBe('7');
    expect(decoder.retryMs).toBe(1500);
    expect(decoder.push('data: x\n\nid: 8\ndata: y\nretry: soon\n\n')).toEqual([
      { event: null, data: 'x' },
      { event: null, data: 'y' },
    ]);
    expect(decoder.lastEventId).toBe('8');
    expect(decoder.retryMs).toBe(1500);
  });

  it('takes an event id as the last one only once its event is whole (a break mid-event resumes before it)', () => {
    const decoder = new SseDecoder();
    decoder.push('id: 1\ndata: one\n\nid: 2\ndata: {"half');
    expect(decoder.lastEventId).toBe('1');
    expect(decoder.push('"}\n\n')).toEqual([{ event: null, data: '{"half"}' }]);
    expect(decoder.lastEventId).toBe('2');
  });

  it('drops a BOM only at the very start of the stream, even split across pieces', () => {
    const bom = [0xef, 0xbb, 0xbf];
    const ascii = (text: string) => [...Buffer.from(text)];
    const events = (...pieces: number[][]) => {
      const decoder = new SseDecoder();
      return [...pieces.flatMap((piece) => decoder.push(Uint8Array.from(piece))), ...decoder.end()];
    };
    expect(events([bom[0]!], [...bom.slice(1), ...ascii('data: a\n\n')])).toEqual([{ event: null, data: 'a' }]);
    // After ASCII text, a BOM is a character of the data like any other.
    expect(events(ascii('data: '), [...bom, ...ascii('a\n\n')])).toEqual([{ event: null, data: '\ufeffa' }]);
  });

  it('decodes any bytes, split anywhere, as one TextDecoder over the whole stream does', () => {
    // One event's data of ASCII, multi-byte characters, BOMs, and invalid or cut-off sequences.
    const byte = fc.oneof(
      fc.constantFrom(...Buffer.from('ab :{}"')),
      fc.constantFrom(0xef, 0xbb, 0xbf, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80, 0xff, 0x80),
    );
    const head = fc.constantFrom([], [0xef, 0xbb, 0xbf], [0xef, 0xbb]).map((bom) => [...bom, ...Buffer.from('data: ')]);
    fc.assert(
      fc.property(head, fc.array(byte, { maxLength: 40 }), fc.array(fc.nat(60), { maxLength: 8 }), (start, bytes, cuts) => {
        const stream = Uint8Array.from([...start, ...bytes, ...Buffer.from('\n\n')]);
        const whole = new SseDecoder();
        const expected = [...whole.push(new TextDecoder().decode(stream)), ...whole.end()];
        const decoder = new SseDecoder();
        const got = [];
        let from = 0;
        for (const cut of [...new Set(cuts)].sort((a, b) => a - b)) {
          if (cut <= from || cut >= stream.length) continue;
          got.push(...decoder.push(stream.subarray(from, cut)));
          from = cut;
        }
        got.push(...decoder.push(Buffer.from(stream.subarray(from))), ...decoder.end());
        expect(got).toEqual(expected);
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps a character cut at the end of the stream as TextDecoder does (U+FFFD)', () => {
    const decoder = new SseDecoder();
    const events = [...decoder.push(Buffer.from('data: x')), ...decoder.push(Uint8Array.from([0xc3])), ...decoder.end()];
    expect(events).toEqual([{ event: null, data: 'x\ufffd' }]);
  });
});
