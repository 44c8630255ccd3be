import { describe, expect, it } from 'vitest';
import type { RedisClient } from './commands/index.js';
import { waitForReplicas } from './replicas.js';

/**
 * A connection that records what is sent on it: INFO replication answers a master with `replicas` connected, and each
 * WAIT stays blocked until the test answers it (as a WAIT holds a real connection).
 */
function fakeConnection(replicas: number) {
  const waits: { resolve: (found: number) => void; reject: (err: Error) => void }[] = [];
  const sent: string[] = [];
  const connection = {
    call(command: string) {
      sent.push(command);
      if (command === 'INFO') return Promise.resolve(`# Replication\r\nrole:master\r\nconnected_slaves:${replicas}\r\n`);
      return new Promise<number>((resolve, reject) => waits.push({ resolve, reject }));
    },
  };
  return { redis: connection as unknown as RedisClient, waits, sent };
}

/** Lets the pending promise callbacks run (the fake answers at once; no timers involved). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('waitForReplicas', () => {
  it('sends no WAIT when the master has fewer replicas connected than asked for, and says not confirmed', async () => {
    const { redis, sent } = fakeConnection(0);
    expect(await Promise.all([waitForReplicas(redis, 'k', 1), waitForReplicas(redis, 'k', 1)])).toEqual([false, false]);
    expect(sent.filter((command) => command === 'WAIT')).toEqual([]);
  });

  it('gathers the callers that come while a WAIT is in flight into one WAIT, sent once that one returns', async () => {
    const { redis, waits, sent } = fakeConnection(1);
    const first = waitForReplicas(redis, 'k', 1);
    await settle();
    expect(waits).toHaveLength(1);
    // Their writes may have gone after the WAIT in flight: it does not answer for them.
    const later = Array.from({ length: 10 }, () => waitForReplicas(redis, 'k', 1));
    await settle();
    expect(waits).toHaveLength(1);
    waits[0]!.resolve(1);
    expect(await first).toBe(true);
    await settle();
    expect(waits).toHaveLength(2);
    waits[1]!.resolve(0);
    expect(await Promise.all(later)).toEqual(Array(10).fill(false));
    expect(sent.filter((command) => command === 'WAIT')).toHaveLength(2);
    // Nothing in flight: the next caller's WAIT goes at once.
    const next = waitForReplicas(redis, 'k', 1);
    await settle();
    expect(waits).toHaveLength(3);
    waits[2]!.resolve(1);
    expect(await next).toBe(true);
  });

  it('says not confirmed when the WAIT fails, and the callers gathered behind it still get a WAIT of their own', async () => {
    const { redis, waits } = fakeConnection(1);
    const first = waitForReplicas(redis, 'k', 1);
    await settle();
    const later = waitForReplicas(redis, 'k', 1);
    waits[0]!.reject(new Error('Connection is closed.'));
    expect(await first).toBe(false);
    await settle();
    expect(waits).toHaveLength(2);
    waits[1]!.resolve(1);
    expect(await later).toBe(true);
  });
});
