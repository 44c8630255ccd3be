import { createServer, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { toErrorResponse } from '@switchboard/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseStrictJson, readJsonBody } from './json-body.js';

const LIMIT = 1024;

/** What one read came to: the body, or the error's answer (status, code) and its http-errors type. */
type Outcome = { body: unknown } | { status: number; code: string | null; message: string; type?: unknown };

let server: Server;
let port: number;
/** The outcome of each read, by the request's `x-case` header, once it settles. */
const outcomes = new Map<string, Promise<Outcome>>();

function outcomeOf(req: IncomingMessage): Promise<Outcome> {
  return readJsonBody(req, LIMIT).then(
    (body) => ({ body }),
    (err: Error & { status?: number; type?: unknown }) => {
      // An AppError answers as it is; one in http-errors' shape (a hang-up) keeps its status and type.
      const { body } = toErrorResponse(err);
      return { status: err.status ?? 500, code: body.error.code, message: body.error.message, type: err.type };
    },
  );
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const outcome = outcomeOf(req);
    outcomes.set(String(req.headers['x-case']), outcome);
    void outcome.then((result) => res.end(JSON.stringify(result)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

let cases = 0;
/** Sends `body` (as it is, or chunked) and gives the read's outcome. */
async function read(body: string | Buffer, headers: Record<string, string> = {}, chunked = false): Promise<Outcome> {
  const response = await fetch(`http://127.0.0.1:${port}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-case': `case-${cases++}`, ...headers },
    body: chunked ? new Blob([typeof body === 'string' ? body : new Uint8Array(body)]).stream() : body,
    ...(chunked ? { duplex: 'half' } : {}),
  } as RequestInit);
  return (await response.json()) as Outcome;
}

const refusal = (status: number, code: string | null) => expect.objectContaining({ status, code });

describe('readJsonBody', () => {
  it('reads an object and an array; an empty body is {}; a BOM is dropped', async () => {
    expect(await read('{"model":"m","messages":[]}')).toEqual({ body: { model: 'm', messages: [] } });
    expect(await read(' \n[1,2]')).toEqual({ body: [1, 2] });
    expect(await read('')).toEqual({ body: {} });
    expect(await read('\ufeff{"a":"é"}')).toEqual({ body: { a: 'é' } });
  });

  it('answers 413 request_too_large past the limit, declared or received, and after decompression', async () => {
    const large = JSON.stringify({ text: 'x'.repeat(LIMIT) });
    expect(await read(large)).toEqual(refusal(413, 'request_too_large'));
    expect(await read(large, {}, true)).toEqual(refusal(413, 'request_too_large'));
    expect(await read(gzipSync(large), { 'content-encoding': 'gzip' })).toEqual(refusal(413, 'request_too_large'));
    expect(await read(JSON.stringify({ text: 'x'.repeat(LIMIT - 11) }))).toEqual({ body: { text: 'x'.repeat(LIMIT - 11) } });
  });

  it('answers 400 invalid_json for bad JSON, a top level that is not an object or array, and a __proto__ key', async () => {
    for (const text of [
      '{"a":',
      '{"a":1}x',
      '"text"',
      '12',
      'null',
      '  ',
      '{"a":[{"__proto__":{"x":1}}]}',
      '{"\\u005f_proto__":1}',
    ]) {
      expect(await read(text), text).toEqual(refusal(400, 'invalid_json'));
    }
    expect(await read('{"a":"__proto__","constructor":{"prototype":1}}')).toEqual({
      body: { a: '__proto__', constructor: { prototype: 1 } },
    });
  });

  it('decodes gzip, deflate and br; another encoding is a 415, a body that does not decode a 400 invalid_body', async () => {
    const text = '{"a":1}';
    expect(await read(gzipSync(text), { 'content-encoding': 'gzip' })).toEqual({ body: { a: 1 } });
    expect(await read(deflateSync(text), { 'content-encoding': 'deflate' })).toEqual({ body: { a: 1 } });
    expect(await read(brotliCompressSync(text), { 'content-encoding': 'br' })).toEqual({ body: { a: 1 } });
    expect(await read(text, { 'content-encoding': 'identity' })).toEqual({ body: { a: 1 } });
    expect(await read(text, { 'content-encoding': 'zstd' })).toEqual(refusal(415, null));
    expect(await read(text, { 'content-encoding': 'gzip' })).toEqual(refusal(400, 'invalid_body'));
  });

  it('fails the read as request.aborted when the client hangs up in the middle of the body', async () => {
    for (const [name, encoding] of [
      ['hang-up', 'identity'],
      ['hang-up-gzip', 'gzip'],
    ] as const) {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => {});
      const part = encoding === 'gzip' ? gzipSync('{"text":"half and more"}').subarray(0, 12) : Buffer.from('{"text":"half');
      socket.write(
        `POST / HTTP/1.1\r\nHost: test\r\nx-case: ${name}\r\nContent-Type: application/json\r\nContent-Encoding: ${encoding}\r\nContent-Length: 100\r\n\r\n`,
      );
      socket.write(part);
      while (!outcomes.has(name)) await new Promise((resolve) => setTimeout(resolve, 10));
      socket.destroy();
      expect(await outcomes.get(name)).toEqual(expect.objectContaining({ status: 400, type: 'request.aborted' }));
    }
  });
});

describe('parseStrictJson', () => {
  it('takes JSON whitespace before the top level, nothing else', () => {
    expect(parseStrictJson(' \t\r\n{}')).toEqual({});
    expect(() => parseStrictJson('\u00a0{}')).toThrow(SyntaxError);
    expect(() => parseStrictJson('\ufeff\ufeff{}')).toThrow(SyntaxError);
  });
});
