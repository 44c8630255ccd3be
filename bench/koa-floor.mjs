#!/usr/bin/env node
// A second reference point: the bare proxy's work (bench/bare-proxy.mjs) done under the framework
// apps/api is built on (Koa, @koa/router, koa-body), with nothing of Switchboard's. The gap from
// bare to this is what the framework costs; the gap from this to the gateway is what Switchboard
// adds (validation, auth, limits, metering, logging, routing). Not a product. Reads the same env
// as apps/api.
import Router from '@koa/router';
import Koa from 'koa';
import { koaBody } from 'koa-body';
import { forward } from './floor-upstream.mjs';

const router = new Router();
router.get('/health', (ctx) => {
  ctx.body = { status: 'ok' };
});
router.post('/v1/chat/completions', koaBody(), async (ctx) => {
  const body = ctx.request.body;
  const { model, upstream } = await forward(body);
  ctx.status = upstream.statusCode;
  if (body.stream) {
    // As the bare proxy: each upstream read written as it comes, not piped through Koa.
    ctx.respond = false;
    ctx.res.writeHead(upstream.statusCode, { 'content-type': upstream.headers['content-type'] });
    for await (const chunk of upstream.body) ctx.res.write(chunk);
    ctx.res.end();
    return;
  }
  const json = await upstream.body.json();
  json.model = model;
  ctx.body = json;
});

const app = new Koa();
app.use(router.routes());
app.listen(Number(process.env.PORT), process.env.HOST || '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
