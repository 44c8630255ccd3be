import type { InboundMessage } from '@switchboard/protocol';
import type { z } from 'zod';
import type { DeliveryTarget } from './definition.js';
import { DeliveryError } from './delivery-error.js';
import type { Hook } from './hooks.js';
import type { ChannelConfig } from './registry.js';

/**
 * The hook a message's reply goes out through, and the message as that hook's channel reads it:
 * the hook that received it, or the one its `deliverVia` names (a mapped hook delivering into a
 * Slack channel), with the rendered target turned into that channel's `replyTo`.
 *
 * @throws DeliveryError (final) when the named hook is gone or takes no such target.
 */
export function routeDelivery<Config extends ChannelConfig>(
  hooks: Map<string, Hook<Config>>,
  hook: Hook<Config>,
  message: InboundMessage,
): { hook: Hook<Config>; message: InboundMessage } {
  const via = message.deliverVia;
  if (!via) return { hook, message };
  const label = `Hook '${hook.name}': delivery through '${via.hook}'`;
  const through = hooks.get(via.hook);
  const target = through?.channel.target;
  if (!through || !target) throw new DeliveryError(`${label}: no such hook takes delivery targets`, false);
  const parsed = target.schema.safeParse(via.target);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new DeliveryError(`${label}: invalid target '${issue?.path.join('.')}': ${issue?.message}`, false);
  }
  return { hook: through, message: { ...message, replyTo: target.replyTo(parsed.data) } };
}

/**
 * What is wrong with a target the config names for a channel, before templates are rendered: a
 * key the channel does not know or a required one missing (values are checked per delivery, once
 * rendered). Null when the keys are right.
 */
export function targetKeysProblem(target: DeliveryTarget, keys: string[]): string | null {
  const shape = target.schema.shape as Record<string, z.ZodType>;
  const unknown = keys.find((key) => !Object.hasOwn(shape, key));
  if (unknown) return `unknown target key '${unknown}' (expected ${Object.keys(shape).join(', ')})`;
  const missing = Object.keys(shape).find((key) => !keys.includes(key) && !shape[key]!.safeParse(undefined).success);
  return missing ? `missing target key '${missing}'` : null;
}
