import { afterEach, describe, expect, it } from 'vitest';
import { acceptMessage } from './accept.js';
import { chatMessage, createHubFixture, type HubFixture } from './test-support/hub-fixture.js';

let fixture: HubFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe('a job’s voice-note transcripts', () => {
  it('are recorded once per file: the first run’s transcript is the one every later run reads', async () => {
    fixture = createHubFixture();
    const { hub } = fixture;
    const { jobId } = await acceptMessage(hub, 'voice', chatMessage('c-heard', ''));
    expect(await hub.transcripts.read(jobId, 0)).toBeNull();
    const first = { text: 'move my booking to Friday', memo: '[voice 0:14] move my booking to Friday' };
    expect(await hub.transcripts.record(jobId, 0, first)).toEqual(first);
    // A racing run's transcript of the same file loses to the first; another file is its own.
    expect(await hub.transcripts.record(jobId, 0, { text: 'other', memo: '[voice] other' })).toEqual(first);
    expect(await hub.transcripts.read(jobId, 0)).toEqual(first);
    expect(await hub.transcripts.read(jobId, 1)).toBeNull();
  });
});
