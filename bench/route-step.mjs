#!/usr/bin/env node
// The router's step alone, in one process: a POST /v1/chat/completions request dispatched to its
// handler by @koa/router (its search of the routes' regexps, its chain) and by the route step
// (apps/api middleware/route-step.ts, straight from the route policy's look-up), with the table's
// routes registered on one router. Rounds run ABBA; read the medians of the ns per request.
// Builds nothing; run `npx turbo run build` first.
//   node bench/route-step.mjs [rounds]
import { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { Socket } from 'node:net';

const rounds = Number(process.argv[2] ?? 8);
const api = new URL('../apps/api/', import.meta.url);
const require = createRequire(api);
const { default: Router } = await import(require.resolve('@koa/router'));
const { default: Koa } = await import(require.resolve('koa'));
const { ROUTES, routePolicy } = await import(new URL('dist/route-policy.js', api).href);
const { routeStep } = await import(new URL('dist/middleware/route-step.js', api).href);

const router = new Router();
for (const { method, path } of ROUTES) {
  router[method.toLowerCase()](path, async (ctx) => {
    ctx.state.answered = true;
  });
}
const steps = { router: router.routes(), direct: routeStep(router, ROUTES) };
const app = new Koa();
const PER_ROUND = 20_000;
const contexts = Array.from({ length: PER_ROUND }, () => {
  const req = new IncomingMessage(new Socket());
  req.method = 'POST';
  req.url = '/v1/chat/completions';
  req.headers = { host: 'localhost' };
  const ctx = app.createContext(req, new ServerResponse(req));
  ctx.state.policy = routePolicy(ctx.method, ctx.path);
  return ctx;
});
const next = () => Promise.resolve();

async function run(step) {
  const started = process.hrtime.bigint();
  for (const ctx of contexts) {
    ctx.matched = undefined;
    await step(ctx, next);
  }
  return Number(process.hrtime.bigint() - started) / PER_ROUND;
}

for (let i = 0; i < 3; i++) for (const step of Object.values(steps)) await run(step);
const times = { router: [], direct: [] };
for (let i = 0; i < rounds; i++) {
  for (const name of i % 2 ? ['direct', 'router'] : ['router', 'direct']) times[name].push(await run(steps[name]));
}
for (const [name, list] of Object.entries(times)) {
  const sorted = list.toSorted((a, b) => a - b);
  const median = sorted[sorted.length >> 1];
  console.log(`${name}: median ${median.toFixed(0)} ns per request (rounds ${sorted[0].toFixed(0)}–${sorted.at(-1).toFixed(0)})`);
}
