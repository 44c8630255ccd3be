import { describe, expect, it } from 'vitest';
import { choicePayload, jobIdOf, jobRefOf, outcomeText, readButtonPayload, readChoicePayload } from './approval.js';

describe('approval buttons', () => {
  it("shortens a platform message's job id to its hash and restores it; other ids stay whole", () => {
    const hashed = 'team-0123456789abcdef0123456789abcdef';
    expect(jobRefOf('team', hashed)).toBe('0123456789abcdef0123456789abcdef');
    expect(jobIdOf('team', jobRefOf('team', hashed))).toBe(hashed);
    const uuid = '3f0c2a4e-9b1d-4c7e-8a2f-6d5e4c3b2a10';
    expect(jobIdOf('team', jobRefOf('team', uuid))).toBe(uuid);
  });

  it('keeps the shard a job id names (redis.shards > 1: `<id>~<n>`) through a button and back', () => {
    for (const jobId of ['team-0123456789abcdef0123456789abcdef~13', '3f0c2a4e-9b1d-4c7e-8a2f-6d5e4c3b2a10~7']) {
      const question = { jobRef: jobRefOf('team', jobId), key: '63:9999' };
      expect(Buffer.byteLength(choicePayload(true, question))).toBeLessThanOrEqual(64);
      const clicked = readChoicePayload(choicePayload(true, question));
      expect(clicked && jobIdOf('team', clicked.jobRef)).toBe(jobId);
    }
    expect(jobRefOf('team', 'team-0123456789abcdef0123456789abcdef~13')).toBe('0123456789abcdef0123456789abcdef~13');
  });

  it("keeps Telegram's 64 bytes with the longest key a loop can reach", () => {
    const question = {
      jobRef: jobRefOf('a-hook-with-a-rather-long-name', '3f0c2a4e-9b1d-4c7e-8a2f-6d5e4c3b2a10'),
      key: '63:9999',
    };
    expect(Buffer.byteLength(choicePayload(true, question))).toBeLessThanOrEqual(64);
    expect(readChoicePayload(choicePayload(false, question))).toEqual({ ...question, approve: false });
  });

  it('reads only payloads of its own shape', () => {
    expect(readButtonPayload('0123456789abcdef0123456789abcdef 2:1')).toEqual({
      jobRef: '0123456789abcdef0123456789abcdef',
      key: '2:1',
    });
    for (const other of ['', 'approve', 'abc 1', 'abc 1:x', 'a b 1:0', `${'x'.repeat(65)} 1:0`])
      expect(readButtonPayload(other)).toBeNull();
    expect(readChoicePayload('x abc 1:0')).toBeNull();
  });

  it('says who decided what, the name already in the platform markup, the call rendered', () => {
    const call = { tool: 'create_ticket', arguments: '{"title":"`printer`"}' };
    const upper = (markdown: string) => markdown.toUpperCase();
    expect(outcomeText({ kind: 'decided', approve: true, by: 'U1', ...call }, '<@U1>', upper)).toBe(
      `✅ <@U1> APPROVED **CREATE_TICKET** WITH \`{"TITLE":"'PRINTER'"}\`.`,
    );
    expect(outcomeText({ kind: 'expired', ...call }, '', (m) => m)).toMatch(/^⌛ Not approved in time: /);
  });
});
