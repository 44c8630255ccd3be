// Loaded into a server with `node --import` by heap-allocation.mjs: on SIGUSR2 prints to stderr the
// bytes the JavaScript heap has allocated since start (v8.GCProfiler: each collection's heap used
// before it, less what was left after the one before, plus what is used now). Exact to the object,
// whatever the machine's load: no timing is read.
import { GCProfiler, getHeapStatistics } from 'node:v8';

let profiler = new GCProfiler();
profiler.start();
let total = 0;
let left = getHeapStatistics().used_heap_size; // used after the last collection counted

process.on('SIGUSR2', () => {
  const { statistics } = profiler.stop();
  for (const gc of statistics) {
    total += gc.beforeGC.heapStatistics.usedHeapSize - left;
    left = gc.afterGC.heapStatistics.usedHeapSize;
  }
  const now = getHeapStatistics().used_heap_size;
  process.stderr.write(`heap-allocation ${JSON.stringify({ bytes: total + (now - left), collections: statistics.length })}\n`);
  profiler = new GCProfiler();
  profiler.start();
});
