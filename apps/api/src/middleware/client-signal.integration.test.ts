import { once } from 'node:events';
import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterEach, describe, expect, it } from 'vitest';
import { clientCancel, clientSignal } from './client-signal.js';
import { onResponseClose } from './request-context.js';

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** Serves `app`, POSTs to it, and hangs up once `inHandler` resolves (the handler has the request). */
async function hangUpOn(app: Koa, inHandler: Promise<void>): Promise<void> {
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const req = request({ port, host: '127.0.0.1', method: 'POST', path: '/v1/chat/completions' });
  req.on('error', () => {});
  req.end('{}');
  await inHandler;
  req.destroy();
}

describe('the client signal', () => {
  it('is aborted at once when the client hung up before it was asked for (a model call is never started for it)', async () => {
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let aborted!: (value: boolean) => void;
    const result = new Promise<boolean>((resolve) => {
      aborted = resolve;
    });
    const app = new Koa();
    // As the request log does: a 'close' handler asked for when the request came in.
    app.use((ctx, next) => {
      onResponseClose(ctx, () => {});
      return next();
    });
    // As v1Call does after awaits of its own (metering, during which the client left).
    app.use(async (ctx) => {
      entered();
      await once(ctx.res, 'close');
      aborted(clientSignal(ctx).aborted);
    });
    await hangUpOn(app, inHandler);
    expect(await result).toBe(true);
  });

  it('as a CancelSource for a /v1 call: cancelled with an AbortError when the client hangs up, after it was asked for or before', async () => {
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let heard!: (value: unknown[]) => void;
    const result = new Promise<unknown[]>((resolve) => {
      heard = resolve;
    });
    const app = new Koa();
    app.use(async (ctx) => {
      const early = clientCancel(ctx);
      const reasons: unknown[] = [];
      early.addEventListener('abort', () => reasons.push(early.reason));
      entered();
      await once(ctx.res, 'close');
      const late = clientCancel(ctx);
      heard([...reasons, late.aborted && late.reason]);
    });
    await hangUpOn(app, inHandler);
    const reasons = await result;
    expect(reasons).toHaveLength(2);
    for (const reason of reasons) expect(reason).toMatchObject({ name: 'AbortError' });
  });

  it('as a CancelSource is never cancelled once the response was written in full', async () => {
    let closed!: (aborted: boolean) => void;
    const cancelled = new Promise<boolean>((resolve) => {
      closed = resolve;
    });
    const app = new Koa();
    app.use((ctx) => {
      const source = clientCancel(ctx);
      ctx.res.once('close', () => setImmediate(() => closed(source.aborted)));
      ctx.body = { ok: true };
    });
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as AddressInfo).port;
    const res = await fetch(`http://127.0.0.1:${port}/`);
    expect(await res.json()).toEqual({ ok: true });
    expect(await cancelled).toBe(false);
  });
});
