import { describe, expect, it } from 'vitest';
import { joinUrl } from './url.js';

describe('joinUrl', () => {
  it('joins with exactly one slash', () => {
    expect(joinUrl('https://slack.com/api', 'chat.postMessage')).toBe('https://slack.com/api/chat.postMessage');
    expect(joinUrl('https://slack.com/api/', '/chat.postMessage')).toBe('https://slack.com/api/chat.postMessage');
    expect(joinUrl('https://slack.com/api//', '//chat.postMessage')).toBe('https://slack.com/api/chat.postMessage');
  });
});
