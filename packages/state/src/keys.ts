/**
 * The keys of shared state outside the hook pipeline (whose keys are @switchboard/hub's), under
 * one prefix, so runs and deployments never collide.
 */
export function stateKeys(prefix: string) {
  return {
    activeSessions: `${prefix}:sessions:active`,
    workers: `${prefix}:workers`,
    channel: (name: string) => `${prefix}:channel:${name}`,
    /** Held by the one process that checks a hook's credentials (as configured: `fingerprint`) this interval. */
    channelCheck: (name: string, fingerprint: string) => `${prefix}:channel-check:${name}:${fingerprint}`,
    /** One subject's request count in one minute window. */
    rateWindow: (subject: string, window: number) => `${prefix}:ratelimit:${subject}:${window}`,
  };
}

export type StateKeys = ReturnType<typeof stateKeys>;
