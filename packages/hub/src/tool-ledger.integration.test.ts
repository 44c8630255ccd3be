import { afterEach, describe, expect, it } from 'vitest';
import { acceptMessage } from './accept.js';
import { chatMessage, createHubFixture, type HubFixture } from './test-support/hub-fixture.js';

let fixture: HubFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

const step = (id: string) => ({
  role: 'assistant' as const,
  content: null,
  tool_calls: [{ id, type: 'function', function: { name: 'calc__add', arguments: '{"a":1,"b":2}' } }],
});

describe('a job’s tool ledger', () => {
  it('keeps the first run’s step, result and decision: a racing run goes on with them, and a re-run reads them all', async () => {
    fixture = createHubFixture();
    const { hub } = fixture;
    const { jobId } = await acceptMessage(hub, 'tools', chatMessage('c-tools', 'add 1 and 2'));
    expect(await hub.tools.recordStep(jobId, 0, step('call_first'))).toEqual(step('call_first'));
    expect(await hub.tools.recordStep(jobId, 0, step('call_second'))).toEqual(step('call_first'));
    const three = { text: '3', isError: false };
    expect(await hub.tools.recordResult(jobId, 0, 0, three)).toEqual(three);
    expect(await hub.tools.recordResult(jobId, 0, 0, { text: 'boom', isError: true })).toEqual(three);
    const yes = { approve: true, at: 1_760_000_000_000, by: 'U1' };
    expect(await hub.tools.decide(jobId, '1:0', yes)).toEqual(yes);
    expect(await hub.tools.decide(jobId, '1:0', { approve: false, at: 1_760_000_000_001 })).toEqual(yes);

    const record = await hub.tools.read(jobId);
    expect(record.steps).toEqual(new Map([[0, step('call_first')]]));
    expect(record.results).toEqual(new Map([['0:0', three]]));
    expect(record.decisions).toEqual(new Map([['1:0', yes]]));
  });
});
