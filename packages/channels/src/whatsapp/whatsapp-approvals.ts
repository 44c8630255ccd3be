import { z } from 'zod';
import { choicePayload, outcomeText, questionText, refusalText } from '../approvals/approval.js';
import type { ApprovalSide } from '../definition.js';
import { DeliveryError } from '../delivery-error.js';
import { okAnswer } from '../inbound.js';
import { markdownToWhatsApp } from '../rich-text/whatsapp-text.js';
import { sendWhatsAppMessage, type WhatsAppSendConfig, whatsappReplyToSchema } from './whatsapp-send.js';

/** An interactive message's body: "Maximum 1024 characters" (the interactive reply buttons reference). */
const BODY_LIMIT = 1024;

/** Where a question or an outcome goes: the customer or group the reply goes to, from the business number. */
const clickReplySchema = z.object({ phone_number_id: z.string().min(1), to: z.string().min(1) });

/** `{messages: [{id}]}`: the wamid of the message sent (the Messages reference, "Response"). */
const sentSchema = z.looseObject({ messages: z.array(z.looseObject({ id: z.string().min(1) })).min(1) });

/**
 * Approve / Deny as an interactive reply buttons message (`type: "interactive"`,
 * `interactive.type: "button"`, two `reply` buttons whose `id` — at most 256 characters — holds
 * the choice, the job's short id and the call's key;
 * developers.facebook.com/documentation/business-messaging/whatsapp/messages/interactive-reply-buttons-messages),
 * quoting the message it answers. A tap comes back as a signed `messages` webhook whose message
 * is `type: "interactive"` with `interactive.button_reply.id` (…/webhooks/reference/messages/interactive).
 * The Cloud API cannot edit a sent message, so the outcome is a new message quoting the question;
 * a tap that changes nothing is told to the tapper alone, in a message to their own number.
 */
export const whatsappApprovals: ApprovalSide<WhatsAppSendConfig> = {
  async ask(question, context) {
    const where = whatsappReplyToSchema.safeParse(question.message.replyTo);
    if (!where.success) throw new DeliveryError(`Hook '${context.hook}': the job holds no WhatsApp number and recipient`, false);
    const { phone_number_id, to, message_id, recipient_type = 'individual' } = where.data;
    const button = (title: string, approve: boolean) => ({
      type: 'reply',
      reply: { id: choicePayload(approve, question), title },
    });
    const sent = await sendWhatsAppMessage(context, phone_number_id, {
      recipient_type,
      to,
      type: 'interactive',
      interactive: {
        type: 'button',
        body: { text: markdownToWhatsApp(questionText(question)).slice(0, BODY_LIMIT) },
        action: { buttons: [button('Approve', true), button('Deny', false)] },
      },
      context: { message_id },
    });
    const id = sentSchema.safeParse(sent.json);
    if (!id.success) throw new DeliveryError(`Hook '${context.hook}': WhatsApp messages answered without a message id`, false);
    return { phone_number_id, to, message_id: id.data.messages[0]!.id, recipient_type };
  },

  /** A decision needs no answer but the webhook's 200 (its outcome follows when the job resumes); a refusal is told to the tapper. */
  async answer(click, outcome, context) {
    if (outcome.kind === 'refused') {
      const { phone_number_id, to } = clickReplySchema.parse(click.reply);
      await sendWhatsAppMessage(context, phone_number_id, {
        recipient_type: 'individual',
        to,
        type: 'text',
        text: { body: refusalText(outcome.reason), preview_url: false },
      });
    }
    return okAnswer();
  },

  async settle(prompt, outcome, context) {
    const { phone_number_id, to, message_id, recipient_type = 'individual' } = whatsappReplyToSchema.parse(prompt);
    const name = outcome.kind === 'decided' ? (outcome.byName ?? outcome.by) : '';
    await sendWhatsAppMessage(context, phone_number_id, {
      recipient_type,
      to,
      type: 'text',
      text: { body: outcomeText(outcome, name, markdownToWhatsApp), preview_url: false },
      context: { message_id },
    });
  },
};
