import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSettings } from '@switchboard/config';
import { acceptMessage, readJobView } from '@switchboard/hub';
import { createLogger } from '@switchboard/logger';
import { deleteKeys, eventually, lineCollector, testPrefix, testRedisUrl } from '@switchboard/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { closeWorkerDeps, createWorkerDeps } from './deps.js';
import { startWorker } from './worker.js';

/** A worker process restricted by `worker.shards` consumes those shards' queues and leaves the others' jobs alone. */
const prefix = testPrefix();
const dir = mkdtempSync(join(tmpdir(), 'switchboard-worker-shards-'));

afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await deleteKeys(prefix);
});

describe('worker.shards', () => {
  it('answers the messages of the shards it lists, and only those', async () => {
    const config = join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        hooks: { ops: { type: 'generic', token: 'worker-shards-token-0123', stream: false } },
        redis: { shards: 3 },
        worker: { shards: [1] },
      }),
    );
    const settings = loadSettings({ REDIS_URL: testRedisUrl(), SWITCHBOARD_REDIS_PREFIX: prefix, SWITCHBOARD_CONFIG: config });
    const { stream } = lineCollector();
    const deps = createWorkerDeps(settings, { logger: createLogger({ level: 'warn', secrets: [], stream }) });
    const running = startWorker(deps);
    try {
      expect(running.workers).toHaveLength(1);
      const jobs: string[] = [];
      for (let c = 0; c < 12; c++) {
        const message = {
          action: 'chat' as const,
          text: `hi ${c}`,
          from: `u${c}`,
          conversation: `u${c}`,
          dedupeKey: null,
          replyTo: {},
        };
        jobs.push((await acceptMessage(deps.hubs, 'ops', message)).jobId);
      }
      const ofShard = (n: number) => jobs.filter((id) => id.endsWith(`~${n}`));
      expect(ofShard(1).length).toBeGreaterThan(0);
      expect(ofShard(0).length + ofShard(2).length).toBeGreaterThan(0);
      await eventually(async () => {
        for (const id of ofShard(1)) expect(await readJobView(deps.hubs, 'ops', id)).toMatchObject({ status: 'completed' });
      });
      for (const id of [...ofShard(0), ...ofShard(2)]) {
        expect(await readJobView(deps.hubs, 'ops', id)).toMatchObject({ status: 'queued', attempts: 0 });
      }
    } finally {
      await running.close(0);
      await closeWorkerDeps(deps);
    }
  });
});
