import type { Settings } from '@switchboard/config';
import { Gateway } from './gateway.js';
import type { GatewayObserver } from './gateway-observer.js';
import { createRegistry, type RegistryOptions } from './registry.js';
import type { CooldownStore } from './routing/cooldown-store.js';
import { warmTokenizer } from './usage.js';

export interface CreateGatewayOptions extends RegistryOptions {
  /** The store every process shares (both apps pass the Redis one). @defaultValue this process's memory */
  cooldowns?: CooldownStore;
  /** Told when that store fails; requests go on without it. */
  onStoreError?: (err: unknown) => void;
  /** Told of tokens, upstream errors, retries and fallbacks (the apps' metrics). */
  observer?: GatewayObserver;
}

/**
 * The registry and the gateway over it, with the configured routes, fallbacks and cooldowns;
 * loads the tokenizer now, not on the first request. Throws a ConfigError when a route or
 * fallback names a model nobody serves.
 */
export function createGateway(settings: Settings, options: CreateGatewayOptions = {}): Gateway {
  warmTokenizer();
  const retry = options.observer?.retry;
  const registry = createRegistry(settings, retry ? { onRetry: (provider) => retry(provider), ...options } : options);
  const { routes, fallbacks, cooldown } = settings.config;
  try {
    return new Gateway(registry, {
      routes,
      fallbacks,
      cooldown,
      ...(options.cooldowns ? { cooldowns: options.cooldowns } : {}),
      ...(options.onStoreError ? { onStoreError: options.onStoreError } : {}),
      ...(options.observer ? { observer: options.observer } : {}),
    });
  } catch (err) {
    void registry.close();
    throw err;
  }
}
