import { joinUrl } from '@switchboard/http';
import { z } from 'zod';
import { DeliveryError } from '../delivery-error.js';
import type { JsonCall, JsonReply } from '../http.js';
import { type EditablePlatform, EditedMessages, MessageGone } from '../live/edited-messages.js';
import type { LiveContext, LiveReply } from '../live/live-reply.js';
import { pieceKey } from '../piece-key.js';
import { bucketEmptyForMs, checkDiscordReply, InteractionExpired, isUnknownMessage } from './discord-api-result.js';

/** An interaction token works for fifteen minutes; a reply close to that goes on through the bot. */
export const INTERACTION_LIFETIME_MS = 15 * 60_000;
const EXPIRY_MARGIN_MS = 30_000;

/** Ids of messages posted in the channel with the bot token (not through the interaction). */
const CHANNEL_PREFIX = 'c:';

const replyToSchema = z.object({ token: z.string().min(1), channel_id: z.string().min(1).optional() });
const messageSchema = z.looseObject({ id: z.string().min(1), content: z.string().optional() });

interface DiscordLiveConfig {
  applicationId: string;
  apiUrl: string;
  botToken?: string | undefined;
}

/**
 * A Discord reply as it is written: the deferred response (Discord already shows "thinking…")
 * is edited (`PATCH …/messages/@original`) as the text grows, follow-up messages carry what is
 * past 2,000 characters and are edited the same way. Once the interaction's fifteen minutes are
 * (nearly) over, or Discord says its token is gone, the reply goes on as channel messages posted
 * and edited with the bot token (`botToken`), each post with the piece's `nonce` and
 * `enforce_nonce`, so a retry after a crash gets the message back rather than a second one. An
 * exhausted rate-limit bucket
 * (`X-RateLimit-Remaining: 0`) pauses every worker for its `X-RateLimit-Reset-After`.
 */
export function discordLive(context: LiveContext<DiscordLiveConfig>): LiveReply {
  const target = replyToSchema.safeParse(context.message.replyTo);
  if (!target.success) throw new DeliveryError(`Hook '${context.hook}': the job holds no interaction token`, false);
  const { token, channel_id } = target.data;
  const { applicationId, apiUrl, botToken } = context.config;
  const webhook = joinUrl(apiUrl, `webhooks/${encodeURIComponent(applicationId)}/${encodeURIComponent(token)}`);
  const secrets = [token, ...(botToken ? [botToken] : [])];
  let expired = Date.now() > context.receivedAt + INTERACTION_LIFETIME_MS - EXPIRY_MARGIN_MS;

  async function send(what: string, call: Omit<JsonCall, 'label'>, gone?: 'gone-ok' | 'gone-throws'): Promise<JsonReply> {
    const label = `Hook '${context.hook}': Discord ${what}`;
    // A reply must never ping @everyone or roles: mentions are rendered, not notified.
    const reply = await context.http.send({ label, ...call });
    const emptyFor = bucketEmptyForMs(reply);
    if (emptyFor !== undefined) await context.polite.pause(emptyFor);
    if (gone && isUnknownMessage(reply)) {
      if (gone === 'gone-ok') return reply;
      throw new MessageGone('Unknown Message');
    }
    checkDiscordReply(label, reply, secrets);
    return reply;
  }

  const body = (markdown: string) => ({ content: markdown, allowed_mentions: { parse: [] } });
  const bot = () => {
    if (!botToken || !channel_id) {
      throw new DeliveryError(
        `Hook '${context.hook}': the interaction expired and no botToken is configured to post instead`,
        false,
      );
    }
    return {
      headers: { authorization: `Bot ${botToken}` },
      url: joinUrl(apiUrl, `channels/${encodeURIComponent(channel_id)}/messages`),
    };
  };
  const idOf = (reply: JsonReply) => {
    const parsed = messageSchema.safeParse(reply.json);
    if (!parsed.success) throw new DeliveryError(`Hook '${context.hook}': Discord answered a post without a message id`, false);
    return parsed.data.id;
  };

  /** How many times this run posted each piece in the channel: a piece posted anew after its message was deleted takes a new nonce. */
  const channelPosts = new Map<number, number>();

  /**
   * Posts a piece in the channel. Discord's Create Message takes a `nonce` (at most 25 characters)
   * and, with `enforce_nonce: true`, answers a nonce the same author used in the past few minutes
   * with that message instead of creating another (https://discord.com/developers/docs/resources/message#create-message,
   * discord-api-types `RESTPostAPIChannelMessageJSONBody`). The nonce is the piece's key, the same
   * on every run of the job. The message returned may hold what an earlier run wrote: it is
   * edited to this piece. (Interaction follow-ups, Execute Webhook, take no nonce.)
   */
  async function postInChannel(markdown: string, index: number): Promise<string> {
    const { headers, url } = bot();
    const posts = channelPosts.get(index) ?? 0;
    channelPosts.set(index, posts + 1);
    const nonce = pieceKey(context.hook, context.jobId, index, posts === 0 ? '' : `again ${posts}`);
    const reply = await send('channel message', {
      method: 'POST',
      url,
      headers,
      body: { ...body(markdown), nonce, enforce_nonce: true },
    });
    const id = idOf(reply);
    if (messageSchema.safeParse(reply.json).data?.content !== markdown) {
      await send('edit of a channel message', { method: 'PATCH', url: `${url}/${id}`, headers, body: body(markdown) });
    }
    return CHANNEL_PREFIX + id;
  }

  /** Runs a call through the interaction; once its token has expired, `fallback` instead. */
  async function viaInteraction<T>(run: () => Promise<T>, fallback: () => Promise<T>): Promise<T> {
    if (expired) return fallback();
    try {
      return await run();
    } catch (err) {
      if (!(err instanceof InteractionExpired)) throw err;
      context.log?.('discord interaction token expired; posting with the bot token');
      expired = true;
      return fallback();
    }
  }

  const platform: EditablePlatform = {
    post: (markdown, index) =>
      viaInteraction(
        async () => {
          if (index > 0) {
            return idOf(await send('follow-up message', { method: 'POST', url: `${webhook}?wait=true`, body: body(markdown) }));
          }
          await send('edit of the original response', {
            method: 'PATCH',
            url: `${webhook}/messages/@original`,
            body: body(markdown),
          });
          return '@original';
        },
        () => postInChannel(markdown, index),
      ),
    async edit(id, markdown) {
      if (id.startsWith(CHANNEL_PREFIX)) {
        const { headers, url } = bot();
        await send(
          'edit of a channel message',
          { method: 'PATCH', url: `${url}/${id.slice(CHANNEL_PREFIX.length)}`, headers, body: body(markdown) },
          'gone-throws',
        );
        return;
      }
      // A message of an expired interaction cannot be edited any more: the piece is posted anew.
      await viaInteraction(
        async () => {
          await send(
            'edit of a response message',
            { method: 'PATCH', url: `${webhook}/messages/${id}`, body: body(markdown) },
            'gone-throws',
          );
        },
        async () => {
          throw new MessageGone('interaction expired');
        },
      );
    },
    async remove(id) {
      if (id.startsWith(CHANNEL_PREFIX)) {
        const { headers, url } = bot();
        await send(
          'delete of a channel message',
          { method: 'DELETE', url: `${url}/${id.slice(CHANNEL_PREFIX.length)}`, headers },
          'gone-ok',
        );
        return;
      }
      await viaInteraction(
        async () => {
          await send('delete of a response message', { method: 'DELETE', url: `${webhook}/messages/${id}` }, 'gone-ok');
        },
        async () => {},
      );
    },
  };
  const messages = new EditedMessages(platform, context, context.earlier?.messages ?? []);
  return {
    thinking() {},
    update: (text) => messages.show(text),
    finish: (reply) => messages.finish(reply.text),
    close() {},
  };
}
