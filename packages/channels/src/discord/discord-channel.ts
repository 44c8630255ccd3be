import { createHash, type KeyObject } from 'node:crypto';
import { joinUrl } from '@switchboard/http';
import { z } from 'zod';
import { checkWith } from '../credential-check.js';
import { defineChannel } from '../definition.js';
import { DeliveryError } from '../delivery-error.js';
import { parseJsonBody } from '../inbound.js';
import { liveConfigShape } from '../live/live-config.js';
import { sendLimitsSchema } from '../live/send-gate.js';
import { platformFileHost } from '../media/file-host.js';
import { MediaHostRefused } from '../media/media-location.js';
import { checkDiscordReply } from './discord-api-result.js';
import { judgeDiscordApplication } from './discord-application.js';
import { discordApprovals } from './discord-approvals.js';
import { discordLive } from './discord-live.js';
import { discordReplyToSchema } from './discord-wire.js';
import { parseDiscordInteraction } from './parse-discord-interaction.js';
import { createDiscordPublicKey, verifyDiscordSignature } from './verify-discord-signature.js';

/** Discord's hosts for attachments. */
const DISCORD_FILE_DOMAINS = ['discordapp.com', 'discordapp.net', 'discord.com'];

/** Discord's limit on message `content`. */
export const DISCORD_TEXT_LIMIT = 2000;

/** The verification key of each public key, built once rather than per request. */
const keys = new Map<string, KeyObject>();
function publicKey(hex: string): KeyObject {
  const known = keys.get(hex);
  if (known) return known;
  const key = createDiscordPublicKey(hex);
  keys.set(hex, key);
  return key;
}

/** Discord slash commands via the interactions endpoint: signed interactions in, webhook edits and follow-ups out. */
export const discord = defineChannel({
  type: 'discord',
  config: z.strictObject({
    /** The application's Ed25519 public key, hex. */
    publicKey: z.string().regex(/^[0-9a-fA-F]{64}$/, 'expected 64 hex characters'),
    applicationId: z.string().min(1),
    apiUrl: z.url().default('https://discord.com/api/v10'),
    /**
     * The bot's token (optional): it checks the configuration (`GET /applications/@me`), and a
     * reply still being written when the interaction's fifteen minutes run out goes on as a
     * channel message through it. Replies otherwise use each interaction's own token.
     */
    botToken: z.string().min(8).optional(),
    ...liveConfigShape(1000),
    /** Edits and follow-ups of one interaction: Discord allows five per five seconds. */
    sendLimits: sendLimitsSchema({ interaction: { count: 5, perMs: 5000 } }),
  }),
  limits: { textLength: DISCORD_TEXT_LIMIT },
  // A public key is not a secret; the bot token is, and the interaction tokens never leave the job.
  secrets: (config) => (config.botToken ? [config.botToken] : []),

  receive(request, config) {
    verifyDiscordSignature(request, publicKey(config.publicKey));
    return parseDiscordInteraction(parseJsonBody(request.rawBody));
  },

  live: { open: discordLive },

  approvals: discordApprovals,

  /** One interaction's webhook is one rate-limit bucket; its token is hashed out of the key. */
  sendTarget(message, config) {
    const target = discordReplyToSchema.safeParse(message.replyTo);
    if (!target.success) return null;
    return {
      key: createHash('sha256').update(target.data.token).digest('hex').slice(0, 24),
      rules: [config.sendLimits.interaction],
    };
  },

  /** Part 0 replaces the deferred "thinking…" response; later parts are follow-up messages. */
  async deliver({ message, text, index }, { hook, config, http }) {
    const label = `Hook '${hook}': Discord ${index === 0 ? 'edit of the original response' : 'follow-up message'}`;
    const target = discordReplyToSchema.safeParse(message.replyTo);
    if (!target.success) throw new DeliveryError(`${label}: the job holds no interaction token`, false);
    const { token } = target.data;
    const webhook = `webhooks/${encodeURIComponent(config.applicationId)}/${encodeURIComponent(token)}`;
    const reply = await http.send({
      label,
      method: index === 0 ? 'PATCH' : 'POST',
      url: joinUrl(config.apiUrl, index === 0 ? `${webhook}/messages/@original` : webhook),
      // A model's reply must never ping @everyone or roles: mentions are rendered, not notified.
      body: { content: text, allowed_mentions: { parse: [] } },
    });
    checkDiscordReply(label, reply, [token]);
  },

  /**
   * Files given to a command's attachment options: the CDN URL Discord put in the interaction,
   * fetched without credentials (the URL is signed), and only from Discord's CDN
   * (cdn.discordapp.com, media.discordapp.net) or the `apiUrl` origin.
   */
  media: {
    locate: async (ref, { config }) => {
      if (!platformFileHost(ref.ref, config.apiUrl, DISCORD_FILE_DOMAINS)) throw new MediaHostRefused('not a Discord CDN host');
      return { url: ref.ref };
    },
  },

  /**
   * `GET /applications/@me` with the bot token: proves the token, and that it and the public key
   * belong to `applicationId`. Without a bot token there is nothing to check the configuration
   * with (the public key only verifies what Discord sends), so the answer is "unknown".
   */
  async checkCredentials({ hook, config, http }) {
    const { botToken } = config;
    if (!botToken) return { connected: null, reason: 'no botToken configured: nothing to check the credentials with' };
    const label = `Hook '${hook}': Discord GET /applications/@me`;
    const call = () =>
      http.send({
        label,
        method: 'GET',
        url: joinUrl(config.apiUrl, 'applications/@me'),
        headers: { authorization: `Bot ${botToken}` },
      });
    return checkWith(call, (reply) => judgeDiscordApplication(label, reply, { ...config, botToken }));
  },
});
