import { joinUrl } from '@switchboard/http';
import { z } from 'zod';
import { choicePayload, outcomeText, questionText, readChoicePayload, refusalText } from '../approvals/approval.js';
import type { ApprovalSide, Inbound } from '../definition.js';
import { DeliveryError } from '../delivery-error.js';
import { parseWith } from '../inbound.js';
import { checkDiscordReply } from './discord-api-result.js';
import { ButtonStyle, ComponentType, discordReplyToSchema, ephemeralAnswer, InteractionResponseType } from './discord-wire.js';

interface DiscordApprovalConfig {
  applicationId: string;
  apiUrl: string;
}

/** A button's `custom_id`: "max 100 characters". */
const CUSTOM_ID_LENGTH = 100;

/**
 * A MESSAGE_COMPONENT interaction (type 3): `data.custom_id` of the pressed button, who pressed it
 * (`member.user` in a server, `user` in a DM) and the `message` it is under. Loose: Discord sends
 * many more fields.
 */
const componentSchema = z.looseObject({
  data: z.looseObject({ custom_id: z.string(), component_type: z.int().optional() }),
  member: z.looseObject({ user: z.looseObject({ id: z.string().min(1), global_name: z.string().nullish() }) }).optional(),
  user: z.looseObject({ id: z.string().min(1), global_name: z.string().nullish() }).optional(),
  message: z.looseObject({ id: z.string().min(1) }),
});

const promptSchema = z.object({ message_id: z.string().min(1), token: z.string().min(1) });

/** A press of one of our buttons; another component is acknowledged with DEFERRED_UPDATE_MESSAGE (type 6) (nothing changes). */
export function parseDiscordComponent(body: unknown): Inbound {
  const interaction = parseWith(componentSchema, body);
  const choice = readChoicePayload(interaction.data.custom_id);
  const user = interaction.member?.user ?? interaction.user;
  if (!choice || !user)
    return { kind: 'answer', answer: { status: 200, body: { type: InteractionResponseType.DeferredMessageUpdate } } };
  return {
    kind: 'click',
    click: {
      ...choice,
      jobId: '',
      user: user.id,
      userName: user.global_name ?? user.id,
      prompt: { message_id: interaction.message.id },
      reply: {},
    },
  };
}

/**
 * Approve / Deny as message components (an action row of two buttons, `custom_id` = the choice,
 * the job's short id and the call's key) on a follow-up message of the interaction being answered
 * (https://discord.com/developers/docs/interactions/receiving-and-responding#create-followup-message).
 * A press is answered in its own HTTP response, as Discord requires within three seconds: a
 * decision with UPDATE_MESSAGE (type 7: the question rewritten, `components: []` removes the
 * buttons), a refusal with an ephemeral message (type 4, flag 64) only the presser sees. A question
 * whose wait ran out is edited through the interaction's webhook — the interaction token lasts
 * fifteen minutes, so with a longer `approvalTimeoutMs` that edit is refused and only warned about.
 */
export const discordApprovals: ApprovalSide<DiscordApprovalConfig> = {
  async ask(question, { hook, config, http }) {
    const label = `Hook '${hook}': Discord follow-up message`;
    const target = discordReplyToSchema.safeParse(question.message.replyTo);
    if (!target.success) throw new DeliveryError(`${label}: the job holds no interaction token`, false);
    const button = (text: string, style: number, approve: boolean) => {
      const custom_id = choicePayload(approve, question);
      if (custom_id.length > CUSTOM_ID_LENGTH)
        throw new DeliveryError(`${label}: custom_id over ${CUSTOM_ID_LENGTH} characters`, false);
      return { type: ComponentType.Button, style, label: text, custom_id };
    };
    const { token } = target.data;
    const reply = await http.send({
      label,
      method: 'POST',
      url: `${joinUrl(config.apiUrl, webhookPath(config.applicationId, token))}?wait=true`,
      body: {
        content: questionText(question),
        allowed_mentions: { parse: [] },
        components: [
          {
            type: ComponentType.ActionRow,
            components: [button('Approve', ButtonStyle.Success, true), button('Deny', ButtonStyle.Danger, false)],
          },
        ],
      },
    });
    checkDiscordReply(label, reply, [token]);
    const posted = z.looseObject({ id: z.string().min(1) }).safeParse(reply.json);
    // Not retried: the question is there, and a retry would post it twice.
    if (!posted.success) throw new DeliveryError(`${label} returned no message id`, false);
    return { message_id: posted.data.id, token };
  },

  async answer(click, outcome) {
    if (outcome.kind === 'refused') return ephemeralAnswer(refusalText(outcome.reason));
    const content = outcomeText(outcome, `**${click.userName}**`, (markdown) => markdown);
    return {
      status: 200,
      body: { type: InteractionResponseType.UpdateMessage, data: { content, components: [], allowed_mentions: { parse: [] } } },
    };
  },

  /** A decision was shown by the press's own answer; a wait that ran out is edited in. */
  async settle(prompt, outcome, { hook, config, http }) {
    if (outcome.kind === 'decided') return;
    const label = `Hook '${hook}': Discord edit of the approval question`;
    const { message_id, token } = promptSchema.parse(prompt);
    const reply = await http.send({
      label,
      method: 'PATCH',
      url: joinUrl(config.apiUrl, `${webhookPath(config.applicationId, token)}/messages/${encodeURIComponent(message_id)}`),
      body: { content: outcomeText(outcome, '', (markdown) => markdown), components: [], allowed_mentions: { parse: [] } },
    });
    checkDiscordReply(label, reply, [token]);
  },
};

const webhookPath = (applicationId: string, token: string) =>
  `webhooks/${encodeURIComponent(applicationId)}/${encodeURIComponent(token)}`;
