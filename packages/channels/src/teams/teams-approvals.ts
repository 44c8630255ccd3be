import { z } from 'zod';
import { choicePayload, outcomeText, questionText, readChoicePayload } from '../approvals/approval.js';
import type { ApprovalSide, Inbound } from '../definition.js';
import { DeliveryError } from '../delivery-error.js';
import { okAnswer } from '../inbound.js';
import type { TeamsAppConfig } from './teams-access-token.js';
import { callConnector, teamsReplyToSchema } from './teams-connector.js';

/** The `data` key our buttons' submits carry (Teams sends `data` back as the activity's `value`). */
const DATA_KEY = 'switchboard';

const resourceSchema = z.looseObject({ id: z.string().min(1) });

/**
 * An Adaptive Card (https://adaptivecards.io/explorer/AdaptiveCard.html, version 1.4 as Teams
 * renders it): the question as a TextBlock (Markdown, which TextBlock renders in part), and, while
 * it waits, Approve / Deny as `Action.Submit` whose `data` holds the choice, the job's short id
 * and the call's key.
 */
function card(text: string, actions: { title: string; data: string }[]) {
  return {
    contentType: 'application/vnd.microsoft.card.adaptive',
    content: {
      type: 'AdaptiveCard',
      $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
      version: '1.4',
      body: [{ type: 'TextBlock', text, wrap: true }],
      ...(actions.length
        ? { actions: actions.map(({ title, data }) => ({ type: 'Action.Submit', title, data: { [DATA_KEY]: data } })) }
        : {}),
    },
  };
}

/**
 * A submit of one of our cards' buttons: a `message` activity whose `value` is the action's `data`
 * (learn.microsoft.com, "Universal Actions" / "Action.Submit" for Teams bots), verified like every
 * activity. Null when the activity is not one.
 */
export function parseTeamsSubmit(activity: {
  value?: unknown;
  from: { id: string; name?: string | undefined };
  replyToId?: unknown;
}): Inbound | null {
  const value = activity.value as Record<string, unknown> | undefined;
  const data = typeof value?.[DATA_KEY] === 'string' ? (value[DATA_KEY] as string) : undefined;
  if (data === undefined) return null;
  const choice = readChoicePayload(data);
  if (!choice) return { kind: 'answer', answer: okAnswer() };
  return {
    kind: 'click',
    click: {
      ...choice,
      jobId: '',
      user: activity.from.id,
      userName: activity.from.name ?? activity.from.id,
      prompt: typeof activity.replyToId === 'string' ? { activity_id: activity.replyToId } : {},
      reply: {},
    },
  };
}

/**
 * Approve / Deny on an Adaptive Card posted as a reply to the message being answered. Teams has no
 * message only one person sees for a bot's reply in a channel, so a submit that changes nothing is
 * answered quietly (200, nothing posted); a decision is shown by the worker, which updates the card
 * (Connector "Update activity": PUT on the card's activity) to say who decided what, without buttons.
 */
export const teamsApprovals: ApprovalSide<TeamsAppConfig> = {
  async ask(question, context) {
    const label = `Hook '${context.hook}': Teams approval card`;
    const where = teamsReplyToSchema.safeParse(question.message.replyTo);
    if (!where.success) throw new DeliveryError(`${label}: the job holds no Teams conversation and activity`, false);
    const attachment = card(questionText(question), [
      { title: 'Approve', data: choicePayload(true, question) },
      { title: 'Deny', data: choicePayload(false, question) },
    ]);
    const answer = await callConnector(context, label, 'POST', where.data, {
      type: 'message',
      replyToId: where.data.activity_id,
      attachments: [attachment],
    });
    const posted = resourceSchema.safeParse(answer);
    // Not retried: the card is there, and a retry would post it twice.
    if (!posted.success) throw new DeliveryError(`${label} returned no activity id`, false);
    return { service_url: where.data.service_url, conversation_id: where.data.conversation_id, activity_id: posted.data.id };
  },

  answer: async () => okAnswer(),

  async settle(prompt, outcome, context) {
    const where = teamsReplyToSchema.parse(prompt);
    const text = outcomeText(outcome, outcome.kind === 'decided' ? `**${outcome.byName ?? outcome.by}**` : '', (m) => m);
    await callConnector(context, `Hook '${context.hook}': Teams update of the approval card`, 'PUT', where, {
      type: 'message',
      id: where.activity_id,
      attachments: [card(text, [])],
    });
  },
};
