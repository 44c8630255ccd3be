import { hash, timingSafeEqual } from 'node:crypto';

/**
 * Compares two secrets in constant time. Both sides are hashed first so that `timingSafeEqual`
 * always sees 32-byte buffers: comparing the raw strings would need equal lengths and so would
 * leak the secret's length through an early return. The one-shot `hash` builds no Hash object
 * (it runs on every hook request).
 */
export function safeEqual(given: string, expected: string): boolean {
  const a = hash('sha256', given, 'buffer');
  const b = hash('sha256', expected, 'buffer');
  return timingSafeEqual(a, b);
}
