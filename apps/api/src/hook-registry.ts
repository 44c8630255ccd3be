import type { IncomingHttpHeaders } from 'node:http';
import { createHookAdapters, type HookAdapter, verifyGenericToken } from '@switchboard/channels';
import type { HookConfig } from '@switchboard/config';
import { notFound } from '@switchboard/protocol';

export interface Hook extends HookAdapter {
  /** Generic hooks only: throws 401 unless the caller holds the hook's token. */
  authorize?: (headers: IncomingHttpHeaders) => void;
}

/** One adapter per configured hook, built at start-up; generic hooks can also authorize job look-ups. */
export function createHooks(hooks: Record<string, HookConfig>): Map<string, Hook> {
  const out = new Map<string, Hook>();
  for (const [name, hook] of createHookAdapters(hooks)) {
    const { config } = hook;
    const authorize =
      config.type === 'generic'
        ? (headers: IncomingHttpHeaders) =>
            verifyGenericToken({ headers, rawBody: Buffer.alloc(0), now: Date.now() }, config.token)
        : undefined;
    out.set(name, authorize ? { ...hook, authorize } : hook);
  }
  return out;
}

/** The hook named in the path, or a 404 in the JSON error shape. */
export function findHook(hooks: Map<string, Hook>, name: string | undefined): Hook {
  const hook = hooks.get(name ?? '');
  if (!hook) throw notFound(`There is no hook named '${name}'.`, 'hook_not_found');
  return hook;
}
