import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';

const url = 'redis://127.0.0.1:6379';
const admin = new Redis(url);
const stats = async () =>
  Object.fromEntries(
    (await admin.info('commandstats'))
      .split('\r\n')
      .filter((l) => l.startsWith('cmdstat_'))
      .map((l) => {
        const [k, v] = l.split(':');
        return [k.slice(8), Number(/calls=(\d+)/.exec(v)[1])];
      }),
  );
const conn = new Redis(url, { maxRetriesPerRequest: null });
const prefix = 'bmqtest-' + Date.now();
const q = new Queue('q', { connection: conn, prefix });
const N = 2000;
let done = 0;
let resolve;
const all = new Promise((r) => (resolve = r));
const before = await stats();
const w = new Worker('q', async () => ({}), {
  connection: new Redis(url, { maxRetriesPerRequest: null }),
  prefix,
  concurrency: 4,
});
w.on('completed', () => {
  if (++done === N) resolve();
});
for (let i = 0; i < N; i++)
  await q.add(
    'm',
    { i },
    {
      removeOnComplete: { age: 86400 },
      removeOnFail: { age: 86400 * 7 },
      attempts: 6,
      backoff: { type: 'exponential', delay: 500 },
    },
  );
await all;
const after = await stats();
const diff = Object.entries(after)
  .map(([k, v]) => [k, (v - (before[k] || 0)) / N])
  .filter(([, v]) => v > 0.01)
  .sort((a, b) => b[1] - a[1]);
console.log(diff.map(([k, v]) => `${k}=${v.toFixed(2)}`).join(' '));
console.log('total per msg', diff.reduce((s, [, v]) => s + v, 0).toFixed(1));
await w.close();
await q.obliterate({ force: true });
await q.close();
conn.disconnect();
admin.disconnect();
