/**
 * The keys of shared state outside the hook pipeline (whose keys are @switchboard/hub's), under
 * one prefix, so runs and deployments never collide.
 */
export function stateKeys(prefix: string) {
  return {
    activeSessions: `${prefix}:sessions:active`,
    workers: `${prefix}:workers`,
    /** When any worker last wrote its heartbeat (ms since the epoch, on the worker’s clock): what /ready judges. */
    workersLastBeat: `${prefix}:workers:last-beat`,
    channel: (name: string) => `${prefix}:channel:${name}`,
    /** Held by the one process that checks a hook's credentials (as configured: `fingerprint`) this interval. */
    channelCheck: (name: string, fingerprint: string) => `${prefix}:channel-check:${name}:${fingerprint}`,
    /** Deployment cooldowns and last errors: one hash, deployment id → JSON (cooldown-store.ts). */
    deployments: `${prefix}:deployments`,
    /** One cached answer, by the hash of its normalised request and tenant. */
    cacheEntry: (hash: string) => `${prefix}:cache:${hash}`,
    /** One subject's request count in one minute window. */
    rateWindow: (subject: string, window: number) => `${prefix}:ratelimit:${subject}:${window}`,
    /** One UTC day's usage: a hash, `<key>|<model>|<hook>|<metric>` → count (usage-fields.ts). */
    usageDay: (day: string) => `${prefix}:usage:${day}`,
    /** One budget's spend in one period (`tokens:<day>`, `cost:<month>`) of a subject (`key:<name>`, `hook:<name>`) (budget-reserve.ts). */
    budget: (subject: string, period: string) => `${prefix}:budget:${subject}:${period}`,
    /** The MCP servers as workers last reported them: one hash, server → JSON (mcp-status.ts). */
    mcpServers: `${prefix}:mcp-servers`,
    /** Reserved send times to one platform target (`<hook>:<target>`), see send-limiter.ts. */
    sendTurns: (target: string) => `${prefix}:send:${target}`,
    /** The people an operator approved for a hook (a set of platform user ids), see access-store.ts. */
    accessUsers: (hook: string) => `${prefix}:access:${hook}:users`,
    /** What `accessUsers` starts with, for the decide script (which appends `<hook>:users`). */
    accessUsersPrefix: `${prefix}:access:`,
    /** A notice sent once per subject and window (`denied:<hook>:<user>`, `rate:<hook>:<user>:<window>`). */
    accessNotice: (subject: string) => `${prefix}:access-notice:${subject}`,
    /** One pending pairing request (a hash: hook, user, name, created), by its code. */
    pairingCode: (code: string) => `${prefix}:pairing:code:${code}`,
    /** The code pending for one person of one hook. */
    pairingPerson: (hook: string, user: string) => `${prefix}:pairing:person:${hook}:${user}`,
    /** What `pairingPerson` starts with, for the decide script (which appends `<hook>:<user>`). */
    pairingPersonPrefix: `${prefix}:pairing:person:`,
    /** The pending codes, by when they were given (a sorted set). */
    pairingPending: `${prefix}:pairing:pending`,
  };
}

export type StateKeys = ReturnType<typeof stateKeys>;
