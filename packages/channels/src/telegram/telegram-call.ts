import { joinUrl } from '@switchboard/http';
import { z } from 'zod';
import { DeliveryError } from '../delivery-error.js';
import type { DeliveryClient, JsonReply } from '../http.js';
import { markdownToTelegramHtml } from '../rich-text/telegram-html.js';
import { checkTelegramReply, telegramResultSchema } from './telegram-api-result.js';

export interface TelegramClient {
  hook: string;
  botToken: string;
  apiUrl: string;
  http: DeliveryClient;
}

/** One Bot API answer, read whatever it says; `description` is Telegram's own words for a refusal. */
export interface TelegramAnswer {
  label: string;
  reply: JsonReply;
  ok: boolean;
  description: string;
}

/** Calls a Bot API method (the token is in the URL, never in a message). */
export async function callTelegram(client: TelegramClient, method: string, body: unknown): Promise<TelegramAnswer> {
  const label = `Hook '${client.hook}': Telegram ${method}`;
  const reply = await client.http.send({
    label,
    method: 'POST',
    url: joinUrl(client.apiUrl, `bot${client.botToken}/${method}`),
    body,
  });
  const parsed = telegramResultSchema.safeParse(reply.json);
  const ok = reply.status >= 200 && reply.status < 300 && parsed.success && parsed.data.ok;
  return { label, reply, ok, description: parsed.success ? (parsed.data.description ?? '') : '' };
}

/**
 * Calls a method that sends text (`sendMessage`, `editMessageText`, `sendMessageDraft`) with the
 * model's Markdown rendered as Telegram HTML (`parse_mode: "HTML"`); when Telegram cannot parse
 * the entities ("can't parse entities"), the same Markdown goes again as plain text. Whole replies
 * and live replies both send through here, so they read the same.
 */
export async function sendTelegramMarkdown(
  client: TelegramClient,
  method: string,
  body: Record<string, unknown>,
  markdown: string,
  log?: (message: string, meta?: Record<string, unknown>) => void,
): Promise<TelegramAnswer> {
  const answer = await callTelegram(client, method, { ...body, text: markdownToTelegramHtml(markdown), parse_mode: 'HTML' });
  if (!isEntityError(answer)) return answer;
  log?.('telegram refused the HTML; sending plain text', { method });
  return callTelegram(client, method, { ...body, text: markdown });
}

/** Throws the answer's `DeliveryError` unless it is a success. */
export function expectOk(answer: TelegramAnswer, botToken: string): void {
  checkTelegramReply(answer.label, answer.reply, botToken);
}

const sentMessageSchema = z.looseObject({ result: z.looseObject({ message_id: z.int() }) });

/** The `message_id` of a sent message, or a final error when the answer holds none. */
export function sentMessageId(answer: TelegramAnswer, botToken: string): string {
  expectOk(answer, botToken);
  const parsed = sentMessageSchema.safeParse(answer.reply.json);
  // Not retried: the message may exist, and a retry would post it twice.
  if (!parsed.success) throw new DeliveryError(`${answer.label} returned an unexpected answer`, false);
  return String(parsed.data.result.message_id);
}

/** Telegram refused the markup: the text is sent again as plain text. */
export const isEntityError = (answer: TelegramAnswer) => !answer.ok && /can't parse entities/i.test(answer.description);
/** An edit that would change nothing: what the message shows is already right. */
export const isNotModified = (answer: TelegramAnswer) => !answer.ok && /message is not modified/i.test(answer.description);
/** The message to edit or delete is gone. */
export const isMessageMissing = (answer: TelegramAnswer) =>
  !answer.ok && /message to (edit|delete) not found|message can't be (edited|deleted)/i.test(answer.description);

/** What `parseTelegramUpdate` stored in `replyTo`; checked again because it comes back from the job store. */
export const telegramReplyToSchema = z.object({
  chat_id: z.int(),
  message_id: z.int().optional(),
  /** The forum topic the message was in (https://core.telegram.org/bots/api#sendmessage). */
  message_thread_id: z.int().optional(),
});
