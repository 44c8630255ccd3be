import { describe, expect, it } from 'vitest';
import { AppError, invalidRequest, QuotaExceeded, upstreamError } from './errors.js';

describe('AppError', () => {
  it('captures no stack frames for a 4xx, the client’s doing', () => {
    for (const err of [invalidRequest('bad', 'model'), new QuotaExceeded('spent')]) {
      expect(err.stack?.split('\n').slice(1)).toEqual([]);
      expect(err).toMatchObject({ message: expect.any(String), status: expect.any(Number) });
    }
  });

  it('keeps the stack of a 5xx, and leaves Error.stackTraceLimit as it was', () => {
    const limit = Error.stackTraceLimit;
    const err = upstreamError('down');
    expect(err.stack?.split('\n').slice(1).length).toBeGreaterThan(0);
    expect(new AppError('x', { status: 404, type: 'not_found_error' }).status).toBe(404);
    expect(Error.stackTraceLimit).toBe(limit);
    expect(new Error('after').stack?.split('\n').slice(1).length).toBeGreaterThan(0);
  });
});
