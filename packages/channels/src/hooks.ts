import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { InboundMessage } from '@switchboard/protocol';
import type { CredentialCheck } from './credential-check.js';
import type { ChannelDefinition, DeliveryMeta, Inbound, InboundRequest } from './definition.js';
import { DeliveryClient } from './http.js';
import { type ChannelConfig, findChannel } from './registry.js';
import { splitText } from './split-text.js';

/**
 * A configured hook bound to its channel: what the API (receiving) and the worker (delivering)
 * hold, one per hook, built at start-up. Each hook owns a keep-alive pool; `close()` it on
 * shutdown.
 */
export interface Hook<Config extends ChannelConfig = ChannelConfig> {
  /** The hook's name: its path segment under `/hooks/`. */
  readonly name: string;
  readonly config: Config;
  readonly channel: ChannelDefinition;
  /** Verifies and parses a request to this hook (see `ChannelDefinition.receive`). */
  receive(request: InboundRequest): Inbound;
  /** The reply cut into the pieces the platform accepts. */
  split(text: string): string[];
  /** Sends piece `index` of a reply (see `ChannelDefinition.deliver`). */
  deliver(message: InboundMessage, text: string, index: number, meta: DeliveryMeta): Promise<void>;
  /** Set when the channel lets callers read their jobs: throws 401 unless the headers hold the credentials. */
  readonly authorizeJobRead: ((headers: IncomingHttpHeaders) => void) | undefined;
  /** Set when the channel can check the hook's credentials with its platform. */
  readonly checkCredentials: (() => Promise<CredentialCheck>) | undefined;
  close(): Promise<void>;
}

export function createHook<Config extends ChannelConfig>(name: string, config: Config): Hook<Config> {
  const channel = findChannel(config.type);
  // The config package only accepts registered types, so this is a programming error.
  if (!channel) throw new Error(`Hook '${name}': no channel has the type '${config.type}'`);
  const http = new DeliveryClient();
  const { textLength } = channel.limits;
  const authorize = channel.authorizeJobRead;
  const check = channel.checkCredentials;
  return {
    name,
    config,
    channel,
    receive: (request) => channel.receive(request, config),
    split: (text) => (Number.isFinite(textLength) ? splitText(text, textLength) : [text]),
    deliver: (message, text, index, meta) => channel.deliver({ message, text, index, meta }, { hook: name, config, http }),
    authorizeJobRead: authorize ? (headers) => authorize(headers, config) : undefined,
    checkCredentials: check ? () => check({ hook: name, config, http }) : undefined,
    close: () => http.close(),
  };
}

/** One hook per configured entry. */
export function createHooks<Config extends ChannelConfig>(hooks: Record<string, Config>): Map<string, Hook<Config>> {
  return new Map(Object.entries(hooks).map(([name, config]) => [name, createHook(name, config)]));
}

/**
 * The credential checks of the hooks whose channel has one, in the shape `ChannelChecks` of
 * @switchboard/state runs. The fingerprint changes with the hook's configuration, so new
 * credentials are checked at once rather than after the interval.
 */
export function credentialChecks(hooks: Map<string, Hook<ChannelConfig>>) {
  return [...hooks.values()].flatMap((hook) => {
    const check = hook.checkCredentials;
    if (!check) return [];
    const fingerprint = createHash('sha256').update(JSON.stringify(hook.config)).digest('hex').slice(0, 16);
    return [{ hook: hook.name, fingerprint, check }];
  });
}

/** Closes every hook's delivery pool. */
export async function closeHooks(hooks: Map<string, Hook<ChannelConfig>>): Promise<void> {
  await Promise.allSettled([...hooks.values()].map((hook) => hook.close()));
}
