import { invalidRequest } from '@switchboard/protocol';
import { z } from 'zod';
import { buttonPayload, outcomeText, questionText, readButtonPayload, refusalText } from '../approvals/approval.js';
import type { ApprovalSide, Inbound, InboundRequest } from '../definition.js';
import { DeliveryError } from '../delivery-error.js';
import { headerValue, okAnswer, parseWith } from '../inbound.js';
import { markdownToSlackMrkdwn } from '../rich-text/slack-mrkdwn.js';
import { callSlack, type SlackCallConfig, slackReplyToSchema } from './slack-call.js';

/** The buttons' `action_id`s (unique within their `actions` block, ≤ 255 characters). */
const APPROVE = 'sb_approve';
const DENY = 'sb_deny';

/**
 * A `block_actions` interactivity payload (https://docs.slack.dev/reference/interaction-payloads/block_actions-payload;
 * bolt-js types it as `BlockAction`): who clicked, where the message with the buttons is
 * (`container` for a message: `message_ts`, `channel_id`, `thread_ts` in a thread), and the
 * button (`action_id`, `value`). Loose: Slack sends many more fields.
 */
const blockActionsSchema = z.looseObject({
  type: z.literal('block_actions'),
  user: z.looseObject({ id: z.string().min(1), username: z.string().optional(), name: z.string().optional() }),
  channel: z.looseObject({ id: z.string().min(1) }).optional(),
  container: z
    .looseObject({ channel_id: z.string().optional(), message_ts: z.string().optional(), thread_ts: z.string().optional() })
    .optional(),
  message: z.looseObject({ ts: z.string(), thread_ts: z.string().optional() }).optional(),
  actions: z.array(z.looseObject({ action_id: z.string(), value: z.string().optional() })),
});

const promptSchema = z.object({ channel: z.string().min(1), ts: z.string().min(1) });
const clickReplySchema = z.object({ channel: z.string().min(1), user: z.string().min(1), thread_ts: z.string().optional() });

/** True for a form body: what Slack sends interactivity payloads as. */
export function isFormBody(request: InboundRequest): boolean {
  return /^application\/x-www-form-urlencoded\b/i.test(headerValue(request.headers, 'content-type') ?? '');
}

/**
 * A verified interactivity request (`payload=<JSON>`, https://docs.slack.dev/interactivity/handling-user-interaction):
 * a click on one of our Approve / Deny buttons, or anything else, acknowledged and ignored.
 *
 * @throws AppError 400 when the body holds no JSON `payload`.
 */
export function parseSlackInteraction(rawBody: Buffer): Inbound {
  const payload = new URLSearchParams(rawBody.toString('utf8')).get('payload');
  let json: unknown;
  try {
    json = JSON.parse(payload ?? '');
  } catch {
    throw invalidRequest("An interactivity request's 'payload' must be JSON.", 'payload', 'invalid_json');
  }
  if ((json as { type?: unknown } | null)?.type !== 'block_actions') return { kind: 'answer', answer: okAnswer() };
  const click = parseWith(blockActionsSchema, json, ['payload']);
  const action = click.actions.find((a) => a.action_id === APPROVE || a.action_id === DENY);
  const target = action?.value ? readButtonPayload(action.value) : null;
  const channel = click.container?.channel_id ?? click.channel?.id;
  const ts = click.container?.message_ts ?? click.message?.ts;
  if (!action || !target || !channel || !ts) return { kind: 'answer', answer: okAnswer() };
  const thread = click.container?.thread_ts ?? click.message?.thread_ts;
  return {
    kind: 'click',
    click: {
      ...target,
      jobId: '',
      approve: action.action_id === APPROVE,
      user: click.user.id,
      userName: click.user.name ?? click.user.username ?? click.user.id,
      prompt: { channel, ts },
      reply: { channel, user: click.user.id, ...(thread ? { thread_ts: thread } : {}) },
    },
  };
}

/**
 * Approve / Deny as Block Kit buttons (https://docs.slack.dev/reference/block-kit/block-elements/button-element)
 * in an `actions` block, posted in the thread the bot answers in. A decision replaces the blocks
 * with a section saying who decided what (chat.update with `blocks`: the buttons are gone); a
 * click that changes nothing is answered with chat.postEphemeral, which only the clicker sees.
 */
export const slackApprovals: ApprovalSide<SlackCallConfig> = {
  async ask(question, context) {
    const where = slackReplyToSchema.safeParse(question.message.replyTo);
    if (!where.success)
      throw new DeliveryError(`Hook '${context.hook}': Slack chat.postMessage: the job holds no Slack channel`, false);
    const text = markdownToSlackMrkdwn(questionText(question));
    const value = buttonPayload(question);
    const answer = await callSlack(context, 'chat.postMessage', {
      channel: where.data.channel,
      ...(where.data.thread_ts ? { thread_ts: where.data.thread_ts } : {}),
      text,
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text } },
        {
          type: 'actions',
          block_id: 'sb_approval',
          elements: [
            { type: 'button', action_id: APPROVE, style: 'primary', text: { type: 'plain_text', text: 'Approve' }, value },
            { type: 'button', action_id: DENY, style: 'danger', text: { type: 'plain_text', text: 'Deny' }, value },
          ],
        },
      ],
    });
    const posted = z.looseObject({ channel: z.string(), ts: z.string() }).safeParse(answer);
    // Not retried: the question is there, and a retry would post it twice.
    if (!posted.success) throw new DeliveryError(`Hook '${context.hook}': Slack chat.postMessage returned no ts`, false);
    return { channel: posted.data.channel, ts: posted.data.ts };
  },

  /** A decision needs no answer but the 200 (the worker edits the question); a refusal goes to the clicker alone. */
  async answer(click, outcome, context) {
    if (outcome.kind === 'refused') {
      const reply = clickReplySchema.parse(click.reply);
      await callSlack(context, 'chat.postEphemeral', { ...reply, text: refusalText(outcome.reason) });
    }
    return okAnswer();
  },

  async settle(prompt, outcome, context) {
    const { channel, ts } = promptSchema.parse(prompt);
    // `by` is the clicker's user id: a mention shows each reader the person's name.
    const text = outcomeText(outcome, outcome.kind === 'decided' ? `<@${outcome.by}>` : '', markdownToSlackMrkdwn);
    await callSlack(context, 'chat.update', { channel, ts, text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] });
  },
};
