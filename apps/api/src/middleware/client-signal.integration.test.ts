import { once } from 'node:events';
import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterEach, describe, expect, it } from 'vitest';
import { clientSignal } from './client-signal.js';
import { onResponseClose } from './request-context.js';

let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

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
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as AddressInfo).port;
    const req = request({ port, host: '127.0.0.1', method: 'POST', path: '/v1/chat/completions' });
    req.on('error', () => {});
    req.end('{}');
    await inHandler;
    req.destroy();
    expect(await result).toBe(true);
  });
});
