import { createHash } from 'node:crypto';
import { z } from 'zod';
import { DeliveryError } from '../delivery-error.js';
import { type EditablePlatform, EditedMessages, MessageGone } from '../live/edited-messages.js';
import type { LiveContext, LiveReply } from '../live/live-reply.js';
import {
  callTelegram,
  expectOk,
  isMessageMissing,
  isNotModified,
  sendTelegramMarkdown,
  sentMessageId,
  type TelegramClient,
} from './telegram-call.js';

/** Telegram shows "typing…" for five seconds; it is renewed sooner. */
export const TYPING_RENEW_MS = 4_000;

const replyToSchema = z.object({ chat_id: z.int(), message_id: z.int() });

interface TelegramLiveConfig {
  botToken: string;
  apiUrl: string;
}

/** Hooks whose bot had drafts refused: they stream by editing from then on (per process). */
const draftsRefused = new Set<string>();

/**
 * A Telegram reply as it is written. While the model thinks: `sendChatAction` typing, renewed
 * every 4 s. In a private chat the text streams as `sendMessageDraft` previews (ephemeral), and
 * one `sendMessage` per piece persists the complete reply; in groups, or where drafts are refused,
 * a `sendMessage` is edited (`editMessageText`) as the text grows. Text goes out as HTML; if
 * Telegram cannot parse it, the same text goes again as plain text.
 */
export function telegramLive(context: LiveContext<TelegramLiveConfig>): LiveReply {
  const target = replyToSchema.safeParse(context.message.replyTo);
  if (!target.success) throw new DeliveryError(`Hook '${context.hook}': the job holds no Telegram chat and message`, false);
  const { chat_id, message_id } = target.data;
  const client: TelegramClient = { hook: context.hook, ...context.config, http: context.http };
  const token = context.config.botToken;
  const earlier = context.earlier;
  // Drafts exist only in private chats (positive ids); a reply that already posted messages keeps editing them.
  let drafting = chat_id > 0 && !earlier?.mode && !earlier?.messages.length && !draftsRefused.has(context.hook);
  const draftId = draftIdOf(context.jobId);

  const platform: EditablePlatform = {
    async post(markdown, index) {
      const reply = index === 0 ? { reply_parameters: { message_id, allow_sending_without_reply: true } } : {};
      return sentMessageId(await withPlainFallback('sendMessage', { chat_id, ...reply }, markdown), token);
    },
    async edit(id, markdown) {
      const answer = await withPlainFallback('editMessageText', { chat_id, message_id: Number(id) }, markdown);
      if (isNotModified(answer)) return;
      if (isMessageMissing(answer)) throw new MessageGone(answer.description);
      expectOk(answer, token);
    },
    async remove(id) {
      const answer = await callTelegram(client, 'deleteMessage', { chat_id, message_id: Number(id) });
      if (!isMessageMissing(answer)) expectOk(answer, token);
    },
  };
  const messages = new EditedMessages(platform, context, earlier?.messages ?? [], earlier?.mode ? { mode: earlier.mode } : {});

  /** HTML first; Telegram's "can't parse entities" sends the same text plain. */
  const withPlainFallback = (method: string, body: Record<string, unknown>, markdown: string) =>
    sendTelegramMarkdown(client, method, body, markdown, context.log);

  async function draft(text: string): Promise<void> {
    const pieces = context.split(text);
    const answer = await withPlainFallback('sendMessageDraft', { chat_id, draft_id: draftId }, pieces.at(-1)!);
    if (answer.ok) return;
    const status = answer.reply.status;
    // Rate limits and outages are the job's to retry (a 429's wait shared with every worker);
    // any other refusal means no drafts here.
    if (status === 429 || status >= 500) {
      try {
        expectOk(answer, token);
      } catch (err) {
        if (err instanceof DeliveryError && err.retryAfterMs !== undefined) await context.polite.pause(err.retryAfterMs);
        throw err;
      }
    }
    context.log?.('telegram refused drafts; streaming by edits', { status });
    draftsRefused.add(context.hook);
    drafting = false;
    await messages.setExtra({ mode: 'edit' });
    await messages.show(text);
  }

  let typing: NodeJS.Timeout | undefined;
  const stopTyping = () => {
    clearInterval(typing);
    typing = undefined;
  };
  const sendTyping = () => {
    callTelegram(client, 'sendChatAction', { chat_id, action: 'typing' }).catch(() => {});
  };

  return {
    thinking() {
      if (typing) return;
      sendTyping();
      typing = setInterval(sendTyping, TYPING_RENEW_MS);
      typing.unref();
    },
    async update(text) {
      stopTyping();
      if (drafting) await draft(text);
      else await messages.show(text);
    },
    async finish(reply) {
      stopTyping();
      return messages.finish(reply.text);
    },
    close: stopTyping,
  };
}

/** A draft id of the job's own (non-zero, 31 bits), so a re-run animates the same draft. */
function draftIdOf(jobId: string): number {
  return createHash('sha256').update(jobId).digest().readUInt32BE(0) & 0x7fffffff || 1;
}
