import { describe, expect, it } from 'vitest';
import { redact, secondsToMs, statusFailure } from './http.js';

describe('statusFailure', () => {
  it('marks 401 and 403 as refused credentials, not retryable', () => {
    for (const status of [401, 403]) {
      const error = statusFailure('X', status, 'nope');
      expect(error.retryable).toBe(false);
      expect(error.options.credentialsRefused).toBe(true);
    }
  });

  it('retries 429 with its delay, and 5xx', () => {
    const limited = statusFailure('X', 429, 'slow down', 3000);
    expect(limited.retryable).toBe(true);
    expect(limited.options).toEqual({ retryAfterMs: 3000 });
    expect(statusFailure('X', 502, '').retryable).toBe(true);
    expect(statusFailure('X', 503, '').retryable).toBe(true);
  });

  it('does not retry other client errors, nor attach a delay to them', () => {
    const error = statusFailure('X', 400, 'Bad Request: chat not found', 1000);
    expect(error.retryable).toBe(false);
    expect(error.options).toEqual({});
    expect(statusFailure('X', 404, '').retryable).toBe(false);
  });

  it('names the call, status and detail', () => {
    expect(statusFailure('Telegram sendMessage', 401, 'Unauthorized').message).toBe(
      'Telegram sendMessage failed with 401: Unauthorized',
    );
    expect(statusFailure('X', 500, '').message).toBe('X failed with 500');
  });
});

describe('secondsToMs', () => {
  it('rounds fractional seconds up to whole milliseconds', () => {
    expect(secondsToMs(0.0625)).toBe(63);
    expect(secondsToMs(3)).toBe(3000);
    expect(secondsToMs(undefined)).toBeUndefined();
    expect(secondsToMs(-1)).toBeUndefined();
  });
});

describe('redact', () => {
  it('removes secrets, raw or URL-encoded, and flattens the text', () => {
    const token = '123456:ABC-def/ghi';
    expect(redact(`bad token ${token}\n and ${encodeURIComponent(token)}`, [token])).toBe('bad token [redacted] and [redacted]');
  });

  it('keeps messages short', () => {
    expect(redact('x'.repeat(1000), [])).toHaveLength(200);
  });
});
