import { describe, expect, it } from 'vitest';
import { closePool, createPool } from './pool.js';

describe('closePool', () => {
  it('may be called again on a pool it closed (a shutdown path that closes twice does not throw)', async () => {
    const pool = createPool({ connections: 1, connectTimeoutMs: 1_000 });
    await closePool(pool);
    expect(pool.destroyed).toBe(true);
    await expect(closePool(pool)).resolves.toBeUndefined();
  });
});
