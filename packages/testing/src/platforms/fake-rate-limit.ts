/** At most `count` calls in any `perMs` window. */
export interface FakeRule {
  count: number;
  perMs: number;
}

/**
 * The sliding windows a fake platform enforces, as a real one would: a call is refused (429)
 * when it would be the `count + 1`-th within `perMs`, and told how long until it would fit.
 */
export class FakeRateLimit {
  readonly #sent = new Map<string, number[]>();
  /** Calls refused with a 429 so far. */
  refused = 0;

  /** 0 when the call may go ahead (it is counted), else the ms until it would fit. */
  check(key: string, rules: readonly FakeRule[], now = Date.now()): number {
    const times = this.#sent.get(key) ?? [];
    let waitMs = 0;
    for (const rule of rules) {
      const inWindow = times.filter((at) => at > now - rule.perMs);
      if (inWindow.length >= rule.count) waitMs = Math.max(waitMs, inWindow[inWindow.length - rule.count]! + rule.perMs - now);
    }
    if (waitMs > 0) {
      this.refused++;
      return waitMs;
    }
    const longest = Math.max(...rules.map((rule) => rule.perMs), 0);
    this.#sent.set(key, [...times.filter((at) => at > now - longest), now]);
    return 0;
  }

  /** What a bucket has left under `rule` and when its oldest call leaves the window (Discord's headers). */
  usage(key: string, rule: FakeRule, now = Date.now()): { remaining: number; resetAfterMs: number } {
    const inWindow = (this.#sent.get(key) ?? []).filter((at) => at > now - rule.perMs);
    return {
      remaining: Math.max(0, rule.count - inWindow.length),
      resetAfterMs: inWindow.length ? inWindow[0]! + rule.perMs - now : rule.perMs,
    };
  }
}
