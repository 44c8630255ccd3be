/** Every key Switchboard writes, under one prefix, so runs and deployments never collide. */
export function stateKeys(prefix: string) {
  return {
    activeSessions: `${prefix}:sessions:active`,
    workers: `${prefix}:workers`,
    conversation: (id: string) => `${prefix}:conversation:${id}`,
    channel: (name: string) => `${prefix}:channel:${name}`,
    /** Claimed when a message with a platform dedupe key is first queued. */
    dedupe: (jobId: string) => `${prefix}:dedupe:${jobId}`,
    /** The last job queued for a conversation, so the next one waits for it. */
    conversationTail: (conversation: string) => `${prefix}:tail:${conversation}`,
    /** The job queued right after `jobId` in its conversation, woken when `jobId` is done. */
    /** One subject's request count in one minute window. */
    rateWindow: (subject: string, window: number) => `${prefix}:ratelimit:${subject}:${window}`,
    successor: (jobId: string) => `${prefix}:next:${jobId}`,
  };
}

export type StateKeys = ReturnType<typeof stateKeys>;
