import { describe, expect, it } from 'vitest';
import { safeEqual } from './safe-equal.js';

describe('safeEqual', () => {
  it('accepts the same secret', () => {
    expect(safeEqual('s3cret-token', 's3cret-token')).toBe(true);
  });

  it('refuses a different secret of the same length or another length', () => {
    expect(safeEqual('s3cret-tokem', 's3cret-token')).toBe(false);
    expect(safeEqual('s3cret', 's3cret-token')).toBe(false);
    expect(safeEqual('', 's3cret-token')).toBe(false);
  });
});
