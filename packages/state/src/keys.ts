/**
 * The keys of shared state outside the hook pipeline (whose keys are @switchboard/hub's), under
 * one prefix, so runs and deployments never collide.
 *
 * On one Redis the names are `<prefix>:…`, as earlier releases wrote them. On Redis Cluster
 * (`cluster: true`) the busy keys are tagged by their subject, so they spread over the masters:
 * rate windows by subject, budget counters by subject (a reservation touches one subject's
 * counters, in one script), usage by day, send turns by target, cache entries by hash, notices by
 * subject (`<prefix>:ratelimit:{key:ab12}:29312345`). The rest — sessions, workers, channel
 * stats, checks, cooldowns, MCP status, and access with pairing (the decide script moves a
 * code's person into the hook's approved set, and the pending index spans every hook) — stays
 * under the deployment's tag `{<prefix>}`: few writes, and MULTIs and scripts that span them.
 */
export function stateKeys(prefix: string, options: { cluster?: boolean } = {}) {
  const cluster = options.cluster ?? false;
  const tag = cluster ? subjectTag : (subject: string) => subject;
  // The deployment's own keys: its tag on a cluster (the names of earlier releases).
  const base = cluster ? `{${prefix}}` : prefix;
  return {
    /**
     * Keys that a MULTI may write together, grouped: on one Redis all of them (one MULTI); on a
     * cluster by their hash tag (one MULTI per slot), since a MULTI may not span slots.
     */
    sameSlot<T>(items: readonly T[], keyOf: (item: T) => string): T[][] {
      if (!cluster) return items.length ? [[...items]] : [];
      const groups = new Map<string, T[]>();
      for (const item of items) {
        const slot = hashTag(keyOf(item));
        const group = groups.get(slot);
        if (group) group.push(item);
        else groups.set(slot, [item]);
      }
      return [...groups.values()];
    },
    activeSessions: `${base}:sessions:active`,
    workers: `${base}:workers`,
    /** When any worker last wrote its heartbeat (ms since the epoch, on the worker’s clock): what /ready judges. */
    workersLastBeat: `${base}:workers:last-beat`,
    channel: (name: string) => `${base}:channel:${name}`,
    /** Held by the one process that checks a hook's credentials (as configured: `fingerprint`) this interval. */
    channelCheck: (name: string, fingerprint: string) => `${base}:channel-check:${name}:${fingerprint}`,
    /** Deployment cooldowns and last errors: one hash, deployment id → JSON (cooldown-store.ts). */
    deployments: `${base}:deployments`,
    /** One cached answer, by the hash of its normalised request and tenant. */
    cacheEntry: (hash: string) => `${prefix}:cache:${tag(hash)}`,
    /** One subject's request count in one minute window. */
    rateWindow: (subject: string, window: number) => `${prefix}:ratelimit:${tag(subject)}:${window}`,
    /** One UTC day's usage: a hash, `<key>|<model>|<hook>|<metric>` → count (usage-fields.ts). */
    usageDay: (day: string) => `${prefix}:usage:${tag(day)}`,
    /** One budget's spend in one period (`tokens:<day>`, `cost:<month>`) of a subject (`key:<name>`, `hook:<name>`) (budget-reserve.ts). */
    budget: (subject: string, period: string) => `${prefix}:budget:${tag(subject)}:${period}`,
    /** The MCP servers as workers last reported them: one hash, server → JSON (mcp-status.ts). */
    mcpServers: `${base}:mcp-servers`,
    /** Reserved send times to one platform target (`<hook>:<target>`), see send-limiter.ts. */
    sendTurns: (target: string) => `${prefix}:send:${tag(target)}`,
    /** The people an operator approved for a hook (a set of platform user ids), see access-store.ts. */
    accessUsers: (hook: string) => `${base}:access:${hook}:users`,
    /** What `accessUsers` starts with, for the decide script (which appends `<hook>:users`). */
    accessUsersPrefix: `${base}:access:`,
    /** A notice sent once per subject and window (`denied:<hook>:<user>`, `rate:<hook>:<user>:<window>`). */
    accessNotice: (subject: string) => `${prefix}:access-notice:${tag(subject)}`,
    /** One pending pairing request (a hash: hook, user, name, created), by its code. */
    pairingCode: (code: string) => `${base}:pairing:code:${code}`,
    /** The code pending for one person of one hook. */
    pairingPerson: (hook: string, user: string) => `${base}:pairing:person:${hook}:${user}`,
    /** What `pairingPerson` starts with, for the decide script (which appends `<hook>:<user>`). */
    pairingPersonPrefix: `${base}:pairing:person:`,
    /** The pending codes, by when they were given (a sorted set). */
    pairingPending: `${base}:pairing:pending`,
  };
}

export type StateKeys = ReturnType<typeof stateKeys>;

/**
 * `{subject}`, a hash tag: Redis Cluster hashes only what lies between the first `{` and the next
 * `}`, so braces inside the subject are escaped (`%7B`, `%7D`, and `%` as `%25`): one subject,
 * one slot, and distinct subjects keep distinct names.
 */
function subjectTag(subject: string): string {
  return `{${subject.replace(/[%{}]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}}`;
}

/** What Redis Cluster hashes of a key: its first non-empty `{…}`, else the whole key. */
function hashTag(key: string): string {
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}
