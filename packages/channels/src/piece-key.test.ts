import { describe, expect, it } from 'vitest';
import { pieceKey } from './piece-key.js';

describe('pieceKey', () => {
  it('is the same for a piece on every run of its job, and fits Discord’s 25-character nonce', () => {
    const key = pieceKey('mm', 'job-42', 1);
    expect(pieceKey('mm', 'job-42', 1)).toBe(key);
    expect(key).toMatch(/^[\w-]{25}$/);
  });

  it('differs for another piece, job, hook or scope', () => {
    const key = pieceKey('mm', 'job-42', 1);
    expect(
      new Set([
        key,
        pieceKey('mm', 'job-42', 2),
        pieceKey('mm', 'job-43', 1),
        pieceKey('dc', 'job-42', 1),
        pieceKey('mm', 'job-42', 1, 'again 1'),
      ]).size,
    ).toBe(5);
  });
});
