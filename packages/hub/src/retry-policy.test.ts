import type { Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { isLastAttempt, MAX_RETRY_AFTER_MS, retryAfterMsOf, retryBackoff } from './retry-policy.js';

const backoff = retryBackoff(500);
const asking = (retryAfterMs: number) => Object.assign(new Error('rate limited'), { retryAfterMs });

describe('the retry policy', () => {
  it('doubles the delay each attempt', () => {
    expect([1, 2, 3, 4].map((attempt) => backoff(attempt, 'switchboard', new Error('x')))).toEqual([500, 1000, 2000, 4000]);
  });

  it('waits exactly as long as a Retry-After asks, shorter or longer than the exponential step, up to a cap', () => {
    expect(backoff(4, 'switchboard', asking(700))).toBe(700);
    expect(backoff(1, 'switchboard', asking(30_000))).toBe(30_000);
    expect(backoff(1, 'switchboard', asking(3_600_000))).toBe(MAX_RETRY_AFTER_MS);
  });

  it('reads retryAfterMs only when it is a sane number', () => {
    expect(retryAfterMsOf(asking(1200))).toBe(1200);
    expect(retryAfterMsOf(Object.assign(new Error(), { retryAfterMs: -1 }))).toBeUndefined();
    expect(retryAfterMsOf(new Error())).toBeUndefined();
    expect(retryAfterMsOf(undefined)).toBeUndefined();
  });

  it('knows the last attempt', () => {
    const job = (attemptsMade: number, attempts: number) => ({ attemptsMade, opts: { attempts } }) as unknown as Job;
    expect(isLastAttempt(job(0, 3))).toBe(false);
    expect(isLastAttempt(job(2, 3))).toBe(true);
    expect(isLastAttempt(job(0, 1))).toBe(true);
  });
});
