import { z } from 'zod';
import { choicePayload, outcomeText, questionText, readChoicePayload, refusalText } from '../approvals/approval.js';
import type { ApprovalSide, DeliveryContext, Inbound } from '../definition.js';
import { DeliveryError } from '../delivery-error.js';
import { okAnswer, parseWith } from '../inbound.js';
import { escapeTelegramHtml, markdownToTelegramHtml } from '../rich-text/telegram-html.js';
import {
  callTelegram,
  expectOk,
  isNotModified,
  sendTelegramMarkdown,
  sentMessageId,
  type TelegramClient,
  telegramReplyToSchema,
} from './telegram-call.js';

interface TelegramApprovalConfig {
  botToken: string;
  apiUrl: string;
}

/** "1-64 bytes" (https://core.telegram.org/bots/api#inlinekeyboardbutton): the job's short id and the call's key fit. */
const CALLBACK_DATA_BYTES = 64;

/**
 * A `callback_query` update (https://core.telegram.org/bots/api#callbackquery): `id` to answer
 * with answerCallbackQuery, `from` (who pressed), `message` (the bot's message with the keyboard;
 * absent when it is too old) and `data` (the button's callback_data).
 */
const callbackQuerySchema = z.looseObject({
  callback_query: z.looseObject({
    id: z.string().min(1),
    from: z.looseObject({ id: z.int(), first_name: z.string().optional(), username: z.string().optional() }),
    message: z.looseObject({ message_id: z.int(), chat: z.looseObject({ id: z.int() }) }).optional(),
    data: z.string().optional(),
  }),
});

const promptSchema = z.object({ chat_id: z.number(), message_id: z.number() });

/** A verified update carrying a `callback_query`: a press of our Approve / Deny, or another button, acknowledged. */
export function parseTelegramCallback(body: unknown): Inbound {
  const { callback_query: query } = parseWith(callbackQuerySchema, body);
  const choice = readChoicePayload(query.data ?? '');
  if (!choice || !query.message) return { kind: 'answer', answer: okAnswer() };
  return {
    kind: 'click',
    click: {
      ...choice,
      jobId: '',
      user: String(query.from.id),
      userName: query.from.first_name ?? query.from.username ?? String(query.from.id),
      prompt: { chat_id: query.message.chat.id, message_id: query.message.message_id },
      reply: { callback_query_id: query.id },
    },
  };
}

/**
 * Approve / Deny as an inline keyboard (`reply_markup.inline_keyboard`, callback buttons) under
 * the question, in the chat (and topic) the bot answers in. A decision edits the question
 * (editMessageText with an empty keyboard: the buttons are gone) and answers the callback query;
 * a press that changes nothing is answered with answerCallbackQuery's text alone, which only the
 * presser sees (https://core.telegram.org/bots/api#answercallbackquery).
 */
export const telegramApprovals: ApprovalSide<TelegramApprovalConfig> = {
  async ask(question, context) {
    const where = telegramReplyToSchema.safeParse(question.message.replyTo);
    if (!where.success)
      throw new DeliveryError(`Hook '${context.hook}': Telegram sendMessage: the job holds no Telegram chat`, false);
    const { chat_id, message_id, message_thread_id } = where.data;
    const button = (text: string, approve: boolean) => {
      const data = choicePayload(approve, question);
      if (Buffer.byteLength(data) > CALLBACK_DATA_BYTES)
        throw new DeliveryError(`Hook '${context.hook}': Telegram callback_data over ${CALLBACK_DATA_BYTES} bytes`, false);
      return { text, callback_data: data };
    };
    const body = {
      chat_id,
      ...(message_thread_id === undefined ? {} : { message_thread_id }),
      ...(message_id === undefined ? {} : { reply_parameters: { message_id, allow_sending_without_reply: true } }),
      reply_markup: { inline_keyboard: [[button('Approve', true), button('Deny', false)]] },
    };
    const sent = await sendTelegramMarkdown(client(context), 'sendMessage', body, questionText(question));
    return { chat_id, message_id: Number(sentMessageId(sent, context.config.botToken)) };
  },

  /** Every press is answered (the client's spinner stops): a decision in a word, a refusal in a sentence only the presser sees. */
  async answer(click, outcome, context) {
    const callback_query_id = z.object({ callback_query_id: z.string() }).parse(click.reply).callback_query_id;
    const text = outcome.kind === 'refused' ? refusalText(outcome.reason) : outcome.approve ? 'Approved' : 'Denied';
    expectOk(await callTelegram(client(context), 'answerCallbackQuery', { callback_query_id, text }), context.config.botToken);
    return okAnswer();
  },

  async settle(prompt, outcome, context) {
    const { chat_id, message_id } = promptSchema.parse(prompt);
    const name = outcome.kind === 'decided' ? escapeTelegramHtml(outcome.byName ?? outcome.by) : '';
    const text = outcomeText(outcome, name, markdownToTelegramHtml);
    const edit = { chat_id, message_id, text, parse_mode: 'HTML', reply_markup: { inline_keyboard: [] } };
    const answer = await callTelegram(client(context), 'editMessageText', edit);
    // A run after a crash edits again: what the message shows is already right.
    if (!isNotModified(answer)) expectOk(answer, context.config.botToken);
  },
};

const client = ({ hook, config, http }: DeliveryContext<TelegramApprovalConfig>): TelegramClient => ({
  hook,
  botToken: config.botToken,
  apiUrl: config.apiUrl,
  http,
});
