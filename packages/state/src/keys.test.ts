import calculateSlot from 'cluster-key-slot';
import { describe, expect, it } from 'vitest';
import { stateKeys } from './keys.js';

const slots = (keys: string[]) => new Set(keys.map((key) => calculateSlot(key)));

describe('stateKeys', () => {
  it('keeps the names earlier releases wrote on a single Redis', () => {
    const keys = stateKeys('switchboard');
    expect([
      keys.activeSessions,
      keys.workers,
      keys.channel('ops'),
      keys.deployments,
      keys.cacheEntry('ab12'),
      keys.rateWindow('key:team-a', 29_312_345),
      keys.usageDay('2026-11-26'),
      keys.budget('hook:ops', 'tokens:2026-11-26'),
      keys.sendTurns('tg:-100'),
      keys.accessUsers('ops'),
      keys.accessNotice('denied:ops:u1'),
      keys.pairingCode('K3Y'),
      keys.pairingPending,
    ]).toEqual([
      'switchboard:sessions:active',
      'switchboard:workers',
      'switchboard:channel:ops',
      'switchboard:deployments',
      'switchboard:cache:ab12',
      'switchboard:ratelimit:key:team-a:29312345',
      'switchboard:usage:2026-11-26',
      'switchboard:budget:hook:ops:tokens:2026-11-26',
      'switchboard:send:tg:-100',
      'switchboard:access:ops:users',
      'switchboard:access-notice:denied:ops:u1',
      'switchboard:pairing:code:K3Y',
      'switchboard:pairing:pending',
    ]);
    expect(keys.sameSlot(['a', 'b', 'c'], (k) => k)).toEqual([['a', 'b', 'c']]);
  });

  it('on a cluster tags the busy keys by subject, so subjects spread over the slots', () => {
    const keys = stateKeys('switchboard', { cluster: true });
    expect(keys.rateWindow('key:team-a', 29_312_345)).toBe('switchboard:ratelimit:{key:team-a}:29312345');
    const subjects = Array.from({ length: 50 }, (_, i) => `key:team-${i}`);
    expect(slots(subjects.map((s) => keys.rateWindow(s, 1))).size).toBeGreaterThan(40);
    expect(slots(subjects.map((s) => keys.sendTurns(s))).size).toBeGreaterThan(40);
    expect(slots(subjects.map((s) => keys.cacheEntry(s))).size).toBeGreaterThan(40);
    expect(slots(['2026-11-25', '2026-11-26', '2026-11-27'].map((d) => keys.usageDay(d))).size).toBe(3);
  });

  it('on a cluster keeps what one script or MULTI touches in one slot', () => {
    const keys = stateKeys('switchboard', { cluster: true });
    // A reservation: one subject's counters, every period (budget-reserve.ts).
    expect(slots([keys.budget('hook:ops', 'tokens:2026-11-26'), keys.budget('hook:ops', 'cost:2026-11')]).size).toBe(1);
    // A subject's rate windows.
    expect(slots([keys.rateWindow('key:a', 1), keys.rateWindow('key:a', 2)]).size).toBe(1);
    // Pairing: the request script, and the decide script (which builds two keys from the prefixes).
    expect(
      slots([
        keys.pairingPerson('ops', 'u1'),
        keys.pairingCode('K3Y'),
        keys.pairingPending,
        `${keys.accessUsersPrefix}ops:users`,
        `${keys.pairingPersonPrefix}ops:u1`,
        keys.accessUsers('ops'),
      ]).size,
    ).toBe(1);
    // The heartbeat MULTI, and the channel counts of every hook in one MULTI.
    expect(slots([keys.workers, keys.workersLastBeat, keys.channel('ops'), keys.channel('support')]).size).toBe(1);
    expect(keys.workers).toBe('{switchboard}:workers');
  });

  it('escapes braces in a subject, so one subject is one tag and two stay two names', () => {
    const keys = stateKeys('switchboard', { cluster: true });
    const odd = keys.budget('key:}{x', 'tokens:d');
    expect(odd).toBe('switchboard:budget:{key:%7D%7Bx}:tokens:d');
    expect(calculateSlot(odd)).toBe(calculateSlot(keys.budget('key:}{x', 'cost:m')));
    expect(keys.rateWindow('a%7D', 1)).not.toBe(keys.rateWindow('a}', 1));
  });

  it('groups writes by slot on a cluster, for one MULTI each', () => {
    const keys = stateKeys('switchboard', { cluster: true });
    const writes = [keys.usageDay('2026-11-26'), keys.budget('hook:ops', 'tokens:d'), keys.budget('hook:ops', 'cost:m')];
    expect(keys.sameSlot(writes, (k) => k)).toEqual([[writes[0]], [writes[1], writes[2]]]);
  });
});
