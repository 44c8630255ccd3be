import type { InboundMessage } from '@switchboard/protocol';
import { eventually } from '@switchboard/testing';
import { UnrecoverableError } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { acceptMessage } from './accept.js';
import { readJobView } from './job-view.js';
import { createHubFixture, type HubFixture } from './test-support/hub-fixture.js';

let fixture: HubFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const message: InboundMessage = { action: 'chat', text: 'hi', from: 'kim', conversation: 'kim', dedupeKey: null, replyTo: {} };

describe('readJobView', () => {
  it('shows a job queued, active, then completed with its reply and attempts', async () => {
    fixture = createHubFixture({ attempts: 3, backoffMs: 10 });
    const { hub } = fixture;
    const { jobId } = await acceptMessage(hub, 'support', message);
    expect(await readJobView(hub, 'support', jobId)).toEqual({ id: jobId, status: 'queued', attempts: 0 });

    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let runs = 0;
    fixture.startWorker(async (job) => {
      runs++;
      if (runs === 1) throw new Error('first attempt fails');
      await held;
      return { reply: `answer to ${job.data.message.text}`, model: 'mock/gpt', parts: 1 };
    });
    await eventually(async () =>
      expect(await readJobView(hub, 'support', jobId)).toMatchObject({ status: 'active', attempts: 1 }),
    );
    release();
    await eventually(async () =>
      expect(await readJobView(hub, 'support', jobId)).toEqual({
        id: jobId,
        status: 'completed',
        reply: 'answer to hi',
        attempts: 2,
      }),
    );
  });

  it('shows a failed job with its error', async () => {
    fixture = createHubFixture();
    const { jobId } = await acceptMessage(fixture.hub, 'support', message);
    fixture.startWorker(async () => {
      throw new UnrecoverableError('Upstream refused the request');
    });
    await eventually(async () =>
      expect(await readJobView(fixture!.hub, 'support', jobId)).toEqual({
        id: jobId,
        status: 'failed',
        error: 'Upstream refused the request',
        attempts: 1,
      }),
    );
  });

  it('shows a reply already recorded while its delivery is still being retried', async () => {
    fixture = createHubFixture();
    const { jobId } = await acceptMessage(fixture.hub, 'support', message);
    await fixture.hub.exchange.record(jobId, 'support:kim', 'hi', { text: 'recorded', model: 'm', created: 1 });
    expect(await readJobView(fixture.hub, 'support', jobId)).toEqual({
      id: jobId,
      status: 'queued',
      reply: 'recorded',
      attempts: 0,
    });
  });

  it('knows no job of another hook, nor an unknown id', async () => {
    fixture = createHubFixture();
    const { jobId } = await acceptMessage(fixture.hub, 'support', message);
    expect(await readJobView(fixture.hub, 'sales', jobId)).toBeNull();
    expect(await readJobView(fixture.hub, 'support', 'no-such-job')).toBeNull();
  });
});
