import { describe, expect, it } from 'vitest';
import { attributeLayers, OTHER } from './layer-costs.mjs';

const root = '/srv/switchboard';
const frame = (functionName, url) => ({ functionName, url, scriptId: '0', lineNumber: 0, columnNumber: 0 });

/**
 * A profile as V8 writes it (nodes with children, one sample per tick with its time delta), built
 * from stacks written root first.
 */
function profileOf(stacks) {
  const nodes = [{ id: 1, callFrame: frame('(root)', ''), children: [] }];
  const samples = [];
  const timeDeltas = [];
  for (const { stack, count = 1 } of stacks) {
    let parent = nodes[0];
    for (const callFrame of stack) {
      let node = parent.children.map((id) => nodes[id - 1]).find((n) => n.callFrame === callFrame);
      if (!node) {
        node = { id: nodes.length + 1, callFrame, children: [] };
        nodes.push(node);
        parent.children.push(node.id);
      }
      parent = node;
    }
    for (let i = 0; i < count; i++) {
      samples.push(parent.id);
      timeDeltas.push(1_000);
    }
  }
  return { nodes, startTime: 0, endTime: samples.length * 1_000, samples, timeDeltas };
}

const dispatch = frame('dispatch', `${root}/node_modules/koa-compose/index.js`);
const rateLimit = frame('', `${root}/apps/api/dist/middleware/rate-limit.js`);
const hit = frame('hit', `${root}/packages/state/dist/rate-limiter.js`);
const sendCommand = frame('sendCommand', `${root}/node_modules/ioredis/built/Redis.js`);
const socketWrite = frame('writeUtf8String', '');
const replies = frame('execute', `${root}/node_modules/redis-parser/lib/parser.js`);
const requestContext = frame('', `${root}/apps/api/dist/middleware/request-context.js`);
const winstonLog = frame('log', `${root}/node_modules/winston/lib/winston/logger.js`);
const nodeWrite = frame('writev', 'node:internal/stream_base_commons');
const parseBody = frame('parseBody', `${root}/apps/api/dist/routes/parse-body.js`);
const zod = frame('_parse', `${root}/node_modules/zod/v4/core/schemas.js`);
const route = frame('', `${root}/apps/api/dist/routes/chat-completions.js`);

const shares = (profile, window) => {
  const { busy, byLayer } = attributeLayers(profile, window);
  return { busy, layers: Object.fromEntries(byLayer) };
};

describe('attributeLayers (the layer table of npm run bench)', () => {
  it('gives each sample to the innermost layer on its stack, past Node’s own frames', () => {
    const profile = profileOf([
      { stack: [dispatch, requestContext, winstonLog, nodeWrite], count: 3 },
      { stack: [dispatch, route, parseBody, zod], count: 2 },
      { stack: [dispatch, route], count: 1 },
      { stack: [frame('(garbage collector)', '')], count: 4 },
      { stack: [frame('(idle)', '')], count: 10 },
    ]);
    expect(shares(profile)).toEqual({
      busy: 10,
      layers: { 'request context + log line': 3, validation: 2, 'upstream call': 1, [OTHER]: 4 },
    });
  });

  it('counts a Redis command sent under the rate limiter as the rate limit’s, and only replies under no layer as the client’s', () => {
    const profile = profileOf([
      { stack: [dispatch, rateLimit, hit, sendCommand, socketWrite], count: 5 },
      { stack: [replies], count: 2 },
    ]);
    expect(shares(profile).layers).toEqual({ 'rate limit': 5, 'Redis client (replies, not under a layer)': 2 });
  });

  it('reads only the samples of the measured window', () => {
    const profile = profileOf([
      { stack: [dispatch, route, parseBody], count: 3 }, // 1, 2, 3 ms
      { stack: [dispatch, requestContext], count: 3 }, // 4, 5, 6 ms
    ]);
    expect(shares(profile, { fromUs: 3_500, toUs: 6_000 })).toEqual({ busy: 3, layers: { 'request context + log line': 3 } });
  });
});
