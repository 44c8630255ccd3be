import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { BodyReader } from './body-reader.js';
import { createPool } from './pool.js';
import { BodyTooLargeError, parseJsonOrUndefined, readBody } from './read-body.js';
import { classifyTransportFailure } from './transport-failure.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** A local server; `handler` decides how it answers. */
async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

/** Answers 100 bytes long, sends 7 and cuts the connection. */
const cutShort: Parameters<typeof createServer>[1] = (_req, res) => {
  res.writeHead(200, { 'content-length': '100' });
  res.write('{"cut":');
  setTimeout(() => res.destroy(), 20);
};

describe('readBody', () => {
  it('reads a body whole when it is within the limit', async () => {
    const url = await serve((_req, res) => res.end('{"ok":true}'));
    const response = await request(url, { dispatcher: createPool({ connections: 1 }) });
    expect(parseJsonOrUndefined(await readBody(response.body, 1024))).toEqual({ ok: true });
  });

  it('refuses a body past the limit, or cuts it short when asked to', async () => {
    const url = await serve((_req, res) => res.end('x'.repeat(5000)));
    const pool = createPool({ connections: 2 });
    await expect(readBody((await request(url, { dispatcher: pool })).body, 1000)).rejects.toBeInstanceOf(BodyTooLargeError);
    const cut = await readBody((await request(url, { dispatcher: pool })).body, 1000, { truncate: true });
    expect(cut.length).toBeLessThanOrEqual(1000);
  });

  it('fails with the silence error when the body stalls between chunks', async () => {
    const url = await serve((_req, res) => res.write('{"partial":')); // never ends
    const response = await request(url, { dispatcher: createPool({ connections: 1 }) });
    const silence = new Error('silent for 100 ms');
    await expect(readBody(response.body, 1024, { idle: { ms: 100, onSilence: () => silence } })).rejects.toBe(silence);
  });

  it('fails a body whose connection is cut before its end', async () => {
    const url = await serve(cutShort);
    const response = await request(url, { dispatcher: createPool({ connections: 1 }) });
    await expect(readBody(response.body, 1024)).rejects.toBeInstanceOf(Error);
  });

  it('fails a body that was destroyed before it was read', async () => {
    const url = await serve((_req, res) => res.end('{"ok":true}'));
    const response = await request(url, { dispatcher: createPool({ connections: 1 }) });
    response.body.on('error', () => {});
    response.body.destroy();
    await new Promise((resolve) => setImmediate(resolve));
    await expect(readBody(response.body, 1024)).rejects.toBeInstanceOf(Error);
  });
});

/** Every read of `reader` to its end, as text. */
async function readAll(reader: BodyReader): Promise<string> {
  let text = '';
  for (;;) {
    const taken = reader.next();
    const piece = taken instanceof Promise ? await taken : taken;
    if (piece === null) return text;
    text += piece.toString('utf8');
  }
}

describe('BodyReader', () => {
  it('hands over every piece of a body written in parts, then null at its end', async () => {
    const url = await serve((_req, res) => {
      res.write('one,');
      setTimeout(() => res.end('two'), 30);
    });
    const response = await request(url, { dispatcher: createPool({ connections: 1 }) });
    const reader = new BodyReader(response.body, 1000, () => new Error('silent'));
    expect(await readAll(reader)).toBe('one,two');
    reader.stop();
  });

  it('fails the wait with the silence error when no piece comes in time', async () => {
    const url = await serve((_req, res) => res.write('first')); // then nothing
    const response = await request(url, { dispatcher: createPool({ connections: 1 }) });
    const silence = new Error('silent for 100 ms');
    const reader = new BodyReader(response.body, 100, () => silence);
    await expect(readAll(reader)).rejects.toBe(silence);
    reader.stop();
  });

  it('fails a body whose connection is cut before its end', async () => {
    const url = await serve(cutShort);
    const response = await request(url, { dispatcher: createPool({ connections: 1 }) });
    const reader = new BodyReader(response.body, 1000, () => new Error('silent'));
    await expect(readAll(reader)).rejects.toBeInstanceOf(Error);
    reader.stop();
  });
});

describe('classifyTransportFailure', () => {
  it('calls a refused connection unreachable and names the code', async () => {
    const url = await serve((_req, res) => res.end());
    const closed = url;
    await new Promise((resolve) => server!.close(resolve));
    server = undefined;
    const err = await request(closed, { dispatcher: createPool({ connections: 1 }) }).catch((e: unknown) => e);
    expect(classifyTransportFailure(err)).toEqual({ kind: 'unreachable', code: 'ECONNREFUSED' });
  });

  it('calls missing response headers a time-out', async () => {
    const url = await serve(() => {}); // never answers
    const err = await request(url, { dispatcher: createPool({ connections: 1 }), headersTimeout: 50 }).catch((e: unknown) => e);
    expect(classifyTransportFailure(err).kind).toBe('timeout');
  });

  it('calls a request cancelled by its signal aborted', async () => {
    const url = await serve(() => {});
    const controller = new AbortController();
    const pending = request(url, { dispatcher: createPool({ connections: 1 }), signal: controller.signal }).catch(
      (e: unknown) => e,
    );
    setTimeout(() => controller.abort(), 20);
    expect(classifyTransportFailure(await pending).kind).toBe('aborted');
  });
});
