// Loaded into a server with `node --import` by async-resources.mjs: counts every async resource
// the process creates (promises, timers, ticks, …) by type, and prints the totals to stderr on SIGUSR2.
import { createHook } from 'node:async_hooks';

const counts = new Map();
createHook({
  init(_id, type) {
    counts.set(type, (counts.get(type) ?? 0) + 1);
  },
}).enable();
process.on('SIGUSR2', () => {
  process.stderr.write(`async-resources ${JSON.stringify(Object.fromEntries(counts))}\n`);
});
