import calculateSlot from 'cluster-key-slot';
import { describe, expect, it } from 'vitest';
import { hubKeys } from './keys.js';

/** BullMQ's own keys for the hub's queue, as `queue.toKey()` builds them. */
const bullKey = (bullPrefix: string, name: string) => `${bullPrefix}:inbound:${name}`;

describe('hubKeys', () => {
  it('puts every key a pipeline script touches in one hash slot on Redis Cluster', () => {
    const keys = hubKeys('{switchboard}');
    const touched = [
      keys.order('support:C0123:1736942400.000100'),
      keys.order('tg:-100987654321'),
      keys.memory('support:{weird}:conversation'),
      keys.dedupe('support-3f2a'),
      bullKey(keys.bullPrefix, 'support-3f2a'),
      bullKey(keys.bullPrefix, 'support-3f2a:lock'),
      bullKey(keys.bullPrefix, 'delayed'),
      bullKey(keys.bullPrefix, 'wait'),
    ];
    expect(new Set(touched.map((key) => calculateSlot(key))).size).toBe(1);
  });

  it('keeps the names earlier releases wrote on a single Redis', () => {
    const keys = hubKeys('switchboard');
    expect(keys.bullPrefix).toBe('switchboard:bull');
    expect(keys.memory('support:bob')).toBe('switchboard:conversation:support:bob');
    expect(keys.dedupe('support-abc')).toBe('switchboard:dedupe:support-abc');
  });
});
