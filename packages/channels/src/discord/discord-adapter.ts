import type { KeyObject } from 'node:crypto';
import type { DiscordHookConfig } from '@switchboard/config';
import { parseRetryAfter } from '@switchboard/protocol';
import { z } from 'zod';
import { DeliveryError, type DeliveryMeta, type Inbound, type InboundMessage, type InboundRequest } from '../channel.js';
import { joinUrl, redact, secondsToMs, statusFailure } from '../http.js';
import { parseJsonBody } from '../inbound.js';
import { PlatformAdapter } from '../platform-adapter.js';
import { parseDiscordInteraction } from './parse-discord-interaction.js';
import { createDiscordPublicKey, verifyDiscordSignature } from './verify-discord-signature.js';

/** Discord's limit on message `content`. */
export const DISCORD_TEXT_LIMIT = 2000;

/** What `parseDiscordInteraction` stored in `replyTo`; checked again because it comes back from the job store. */
const discordReplyToSchema = z.object({ token: z.string().min(1) });

/** Discord's error body; a 429 adds `retry_after` in (fractional) seconds and `global`. */
const discordErrorSchema = z.looseObject({
  message: z.string().optional(),
  code: z.number().optional(),
  retry_after: z.number().optional(),
  global: z.boolean().optional(),
});

/** Discord slash commands via the interactions endpoint: signed interactions in, webhook edits and follow-ups out. */
export class DiscordAdapter extends PlatformAdapter<DiscordHookConfig> {
  readonly type = 'discord' as const;
  protected readonly textLimit = DISCORD_TEXT_LIMIT;
  readonly #key: KeyObject = createDiscordPublicKey(this.config.publicKey);

  receive(request: InboundRequest): Inbound {
    verifyDiscordSignature(request, this.#key);
    return parseDiscordInteraction(parseJsonBody(request.rawBody));
  }

  /** Part 0 replaces the deferred "thinking…" response; later parts are follow-up messages. */
  async deliverPart(message: InboundMessage, part: string, index: number, _meta: DeliveryMeta): Promise<void> {
    const label = `Hook '${this.name}': Discord ${index === 0 ? 'edit of the original response' : 'follow-up message'}`;
    const target = discordReplyToSchema.safeParse(message.replyTo);
    if (!target.success) throw new DeliveryError(`${label}: the job holds no interaction token`, false);
    const { token } = target.data;
    const webhook = `webhooks/${encodeURIComponent(this.config.applicationId)}/${encodeURIComponent(token)}`;
    const reply = await this.http.send({
      label,
      method: index === 0 ? 'PATCH' : 'POST',
      url: joinUrl(this.config.apiUrl, index === 0 ? `${webhook}/messages/@original` : webhook),
      // A model's reply must never ping @everyone or roles: mentions are rendered, not notified.
      body: { content: part, allowed_mentions: { parse: [] } },
    });
    if (reply.status >= 200 && reply.status < 300) return;
    const error = discordErrorSchema.safeParse(reply.json);
    const body = error.success ? error.data : undefined;
    const retryAfterMs = secondsToMs(body?.retry_after) ?? parseRetryAfter(reply.headers['retry-after']);
    // The interaction token is a credential for fifteen minutes: it never goes into a message.
    const detail = redact(body?.message ?? reply.text, [token]);
    throw statusFailure(label, reply.status, detail, retryAfterMs);
  }
}
