import { slackButtonClick, slackInteractionBody } from '@switchboard/testing';
import { describe, expect, it } from 'vitest';
import { parseSlackInteraction } from './slack-approvals.js';

const posted = {
  channel: 'C0123',
  ts: '1736942500.000001',
  thread_ts: '1736942400.000100',
  blocks: [
    {
      type: 'actions',
      block_id: 'sb_approval',
      elements: [
        { type: 'button', action_id: 'sb_approve', text: { type: 'plain_text', text: 'Approve' }, value: 'abc 0:0' },
        { type: 'button', action_id: 'other', text: { type: 'plain_text', text: 'Other' }, value: 'abc 0:0' },
      ],
    },
  ],
};
const body = (payload: unknown) => Buffer.from(slackInteractionBody(payload));

describe('parseSlackInteraction', () => {
  it('reads a click on Approve as the call, the clicker, the message with the buttons and its thread', () => {
    expect(parseSlackInteraction(body(slackButtonClick(posted, 'sb_approve', { id: 'U9', username: 'ada' })))).toEqual({
      kind: 'click',
      click: {
        jobRef: 'abc',
        key: '0:0',
        jobId: '',
        approve: true,
        user: 'U9',
        userName: 'ada',
        prompt: { channel: 'C0123', ts: '1736942500.000001' },
        reply: { channel: 'C0123', user: 'U9', thread_ts: '1736942400.000100' },
      },
    });
  });

  it("acknowledges other interactivity (another app's button, a view submission) and refuses a payload that is not JSON", () => {
    const ok = { kind: 'answer', answer: { status: 200, body: { ok: true } } };
    expect(parseSlackInteraction(body(slackButtonClick(posted, 'other')))).toEqual(ok);
    expect(parseSlackInteraction(body({ type: 'view_submission' }))).toEqual(ok);
    expect(() => parseSlackInteraction(Buffer.from('payload=%7Bnope'))).toThrow(/payload/);
  });
});
