import { describe, expect, it } from 'vitest';
import { completionId, itemId, responseId } from './ids.js';

describe('ids', () => {
  it('are their prefix and 32 hex characters, and differ across a refill of the random pool', () => {
    const ids = Array.from({ length: 1500 }, () => completionId());
    for (const id of ids) expect(id).toMatch(/^chatcmpl-[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(responseId()).toMatch(/^resp_[0-9a-f]{32}$/);
    expect(itemId('mcpl')).toMatch(/^mcpl_[0-9a-f]{32}$/);
  });
});
