import { getEventListeners } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { BodyQueue } from './body-queue.js';
import { bodyText, type Exchange, type ExchangeGuard, exchange } from './exchange.js';
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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const silence = new Error('silent too long');
const guard = (ms: number, signal?: AbortSignal): ExchangeGuard => ({ ms, timedOut: () => silence, signal });
const get = (origin: string) => ({ origin, path: '/', method: 'GET' as const });

/** A GET whose whole body is read as text under `guard`. */
function text(origin: string, limits: ExchangeGuard, limit = 1024, tooLarge?: () => Error) {
  return exchange(createPool({ connections: 1 }), get(origin), () => bodyText(limit, tooLarge ? { tooLarge } : {}), limits);
}

/** A GET whose body goes to a `BodyQueue` (resolved once the head is in). */
function queued(origin: string, limits: ExchangeGuard, highWater?: number): Promise<BodyQueue> {
  return new Promise((resolve, reject) => {
    const call = exchange<void>(
      createPool({ connections: 1 }),
      get(origin),
      (_head, ex: Exchange<void>) => {
        const queue = new BodyQueue(ex, highWater);
        resolve(queue);
        return queue;
      },
      limits,
    );
    call.done.catch(reject);
  });
}

/** Every piece of `queue` to its end, as text. */
async function readAll(queue: BodyQueue): Promise<string> {
  let all = '';
  for (;;) {
    const taken = queue.next();
    const piece = taken instanceof Promise ? await taken : taken;
    if (piece === null) return all;
    all += piece.toString('utf8');
  }
}

describe('an exchange under a guard', () => {
  it('reads a body written in parts, each within the time-out', async () => {
    const url = await serve(async (_req, res) => {
      for (const part of ['a', 'b', 'c']) {
        res.write(part);
        await sleep(60);
      }
      res.end('d');
    });
    expect(await text(url, guard(300)).done).toBe('abcd');
  });

  it('fails with the time-out error when the head does not come in time', async () => {
    const url = await serve(() => {}); // never answers
    await expect(text(url, guard(100)).done).rejects.toBe(silence);
  });

  it('fails with the time-out error when the body stalls between chunks', async () => {
    const url = await serve((_req, res) => res.write('{"partial":')); // never ends
    await expect(text(url, guard(100)).done).rejects.toBe(silence);
  });

  it('fails with the sink’s error past its limit', async () => {
    const url = await serve((_req, res) => res.end('x'.repeat(5000)));
    const tooLarge = new Error('too large');
    await expect(text(url, guard(1000), 1000, () => tooLarge).done).rejects.toBe(tooLarge);
  });

  it('fails with the signal’s reason when it fires, and leaves no listener on it', async () => {
    const url = await serve((_req, res) => res.write('first')); // then nothing
    const controller = new AbortController();
    const call = text(url, guard(5000, controller.signal));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    const gone = new Error('the client hung up');
    setTimeout(() => controller.abort(gone), 50);
    await expect(call.done).rejects.toBe(gone);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('does not start under a signal that has fired, and leaves no listener once read', async () => {
    const url = await serve((_req, res) => res.end('ok'));
    const aborted = AbortSignal.abort(new Error('gone already'));
    await expect(text(url, guard(1000, aborted)).done).rejects.toThrow('gone already');
    const signal = new AbortController().signal;
    expect(await text(url, guard(1000, signal)).done).toBe('ok');
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });
});

describe('BodyQueue', () => {
  it('hands over every piece of a body written in parts, then null at its end', async () => {
    const url = await serve((_req, res) => {
      res.write('one,');
      setTimeout(() => res.end('two'), 30);
    });
    const queue = await queued(url, guard(1000));
    expect(await readAll(queue)).toBe('one,two');
    queue.stop();
  });

  it('fails the wait with the time-out error when no piece comes in time', async () => {
    const url = await serve((_req, res) => res.write('first')); // then nothing
    const queue = await queued(url, guard(100));
    await expect(readAll(queue)).rejects.toBe(silence);
  });

  it('does not count the reader’s own slowness as silence', async () => {
    const url = await serve((_req, res) => {
      res.write('first,');
      setTimeout(() => res.end('last'), 600);
    });
    const queue = await queued(url, guard(400));
    await sleep(700); // not reading, past the time-out
    expect(await readAll(queue)).toBe('first,last');
  });

  it('fails a body whose connection is cut before its end', async () => {
    const url = await serve(cutShort);
    const queue = await queued(url, guard(1000));
    await expect(readAll(queue)).rejects.toBeInstanceOf(Error);
  });

  it('fails the wait with the signal’s reason when it fires', async () => {
    const url = await serve((_req, res) => res.write('first')); // then nothing
    const controller = new AbortController();
    const queue = await queued(url, guard(5000, controller.signal));
    const gone = new Error('the client hung up');
    setTimeout(() => controller.abort(gone), 50);
    await expect(readAll(queue)).rejects.toBe(gone);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('holds the server back while the reader does not take, then hands over everything in order', async () => {
    const pieces = 2_000; // 8 MiB: far more than the sockets between the two can hold
    const sent = { pieces: 0, blocked: false };
    const url = await serve(async (_req, res) => {
      for (let i = 0; i < pieces; i++) {
        sent.pieces = i + 1;
        if (!res.write(`${String(i).padStart(6, '0')}${'x'.repeat(4090)}`)) {
          sent.blocked = true;
          await new Promise((resolve) => res.once('drain', resolve));
        }
      }
      res.end();
    });
    const queue = await queued(url, guard(500), 16 * 1024);
    await sleep(800); // not reading, past the time-out too
    expect(sent.blocked).toBe(true);
    expect(sent.pieces).toBeLessThan(pieces);
    const all = await readAll(queue);
    expect(all).toHaveLength(pieces * 4096);
    expect(all.slice(-4096, -4090)).toBe(String(pieces - 1).padStart(6, '0'));
  });

  it('closes the connection when the reader stops before the end', async () => {
    let closed = false;
    const url = await serve((_req, res) => {
      res.write('first');
      res.on('close', () => {
        closed = true;
      });
    });
    const queue = await queued(url, guard(1000));
    const taken = queue.next();
    expect(((taken instanceof Promise ? await taken : taken) as Buffer).toString()).toBe('first');
    queue.stop();
    await expect.poll(() => closed).toBe(true);
  });
});
