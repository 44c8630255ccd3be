import type { HookConfig } from '@switchboard/config';
import type { ChannelAdapter } from './channel.js';
import { DiscordAdapter } from './discord/discord-adapter.js';
import { GenericAdapter } from './generic/generic-adapter.js';
import { SlackAdapter } from './slack/slack-adapter.js';
import { TelegramAdapter } from './telegram/telegram-adapter.js';

/**
 * The adapter for a configured hook. Each adapter holds its own connection pool, so create one
 * per hook at start-up and `close()` it on shutdown.
 *
 * @param name - The hook's name (its path segment under `/hooks/`), used in error messages.
 */
export function createAdapter(name: string, config: HookConfig): ChannelAdapter {
  switch (config.type) {
    case 'generic':
      return new GenericAdapter(name, config);
    case 'slack':
      return new SlackAdapter(name, config);
    case 'telegram':
      return new TelegramAdapter(name, config);
    case 'discord':
      return new DiscordAdapter(name, config);
  }
}

/** A configured hook and its adapter. */
export interface HookAdapter {
  name: string;
  config: HookConfig;
  adapter: ChannelAdapter;
}

/** One adapter per configured hook, as the API (receiving) and the worker (delivering) both need. */
export function createHookAdapters(hooks: Record<string, HookConfig>): Map<string, HookAdapter> {
  return new Map(Object.entries(hooks).map(([name, config]) => [name, { name, config, adapter: createAdapter(name, config) }]));
}

/** Closes every hook's delivery pool. */
export async function closeHookAdapters(hooks: Map<string, HookAdapter>): Promise<void> {
  await Promise.allSettled([...hooks.values()].map((hook) => hook.adapter.close()));
}
