/** Every key Switchboard writes, under one prefix, so runs and deployments never collide. */
export function stateKeys(prefix: string) {
  return {
    activeSessions: `${prefix}:sessions:active`,
    workers: `${prefix}:workers`,
    conversation: (id: string) => `${prefix}:conversation:${id}`,
    channel: (name: string) => `${prefix}:channel:${name}`,
    dedupe: (hook: string, key: string) => `${prefix}:dedupe:${hook}:${key}`,
  };
}

export type StateKeys = ReturnType<typeof stateKeys>;
