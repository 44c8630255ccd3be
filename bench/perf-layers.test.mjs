import { describe, expect, it } from 'vitest';
import { OTHER } from './layer-costs.mjs';
import { attributePerfScript } from './perf-layers.mjs';

const root = 'file:///srv/switchboard';

/** One sample as `perf script -F tid,ip,sym` prints it: the thread, then the stack innermost first. */
const sample = (tid, ...frames) =>
  [` ${tid} `, ...frames.map((sym, i) => `\t    ${(0x7f0000 + i).toString(16)} ${sym}`)].join('\n');

describe('attributePerfScript (bench/perf-layers.mjs)', () => {
  it('gives each sample to the innermost layer among its JIT frames, names with a space included', () => {
    const text = [
      sample(
        4243,
        'Builtins_JsonStringify',
        'JS:*stringify /srv/switchboard/node_modules/safe-stable-stringify/index.js:601:22',
        `JS:* ${root}/apps/api/dist/middleware/request-context.js:18:35`,
        'JS:*emitCloseNT node:_http_server:1015:21',
      ),
      sample(4243, 'v8::internal::Builtin_JsonParse', `JS:*get signal ${root}/packages/http/dist/deadline.js:28:5`),
      sample(
        4243,
        'JS:~parseBody /srv/switchboard/apps/api/dist/routes/parse-body.js:3:1',
        'JS:^dispatch /srv/switchboard/node_modules/koa-compose/index.js:40:23',
      ),
      sample(4247, 'v8::internal::Scavenger::ScavengeObject', 'start_thread'),
      sample(4243, 'JS:wasm-function[20]-20-turbofan', 'JS:*onHttpSocketReadable node:_http_client:1:1'),
    ].join('\n\n');
    const { samples, byLayer } = attributePerfScript(`${text}\n`);
    expect(samples).toBe(5);
    expect(Object.fromEntries(byLayer)).toEqual({
      'request context + log line': 1,
      'upstream call': 1,
      validation: 1,
      [OTHER]: 2,
    });
  });
});
