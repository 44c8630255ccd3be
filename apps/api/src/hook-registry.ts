import type { IncomingHttpHeaders } from 'node:http';
import { type ChannelAdapter, createAdapter, verifyGenericToken } from '@switchboard/channels';
import type { HookConfig } from '@switchboard/config';

export interface Hook {
  name: string;
  config: HookConfig;
  adapter: ChannelAdapter;
  /** Generic hooks only: throws 401 unless the caller holds the hook's token. */
  authorize?: (headers: IncomingHttpHeaders) => void;
}

/** One adapter per configured hook, built at start-up. */
export function createHooks(hooks: Record<string, HookConfig>): Map<string, Hook> {
  const out = new Map<string, Hook>();
  for (const [name, config] of Object.entries(hooks)) {
    const adapter = createAdapter(name, config);
    out.set(name, {
      name,
      config,
      adapter,
      ...(config.type === 'generic'
        ? {
            authorize: (headers: IncomingHttpHeaders) =>
              verifyGenericToken({ headers, rawBody: Buffer.alloc(0), now: Date.now() }, config.token),
          }
        : {}),
    });
  }
  return out;
}
