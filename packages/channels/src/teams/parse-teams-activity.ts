import { unauthorized } from '@switchboard/protocol';
import { z } from 'zod';
import type { Inbound } from '../definition.js';
import { okAnswer, parseWith } from '../inbound.js';
import { parseTeamsSubmit } from './teams-approvals.js';
import { teamsMediaOf } from './teams-media.js';
import { endorses, type TeamsToken } from './verify-teams-token.js';

/** A Bot Framework activity. Loose: the schema is large and grows; only what is named is read. */
const activitySchema = z.looseObject({ type: z.string(), serviceUrl: z.string(), channelId: z.unknown().optional() });

const messageSchema = z.looseObject({
  id: z.string().min(1),
  serviceUrl: z.url({ protocol: /^https?$/ }),
  /** `personal`, `groupChat` or `channel` (learn.microsoft.com: conversation basics for Teams bots). */
  conversation: z.looseObject({ id: z.string().min(1), conversationType: z.string().optional() }),
  from: z.looseObject({ id: z.string().min(1), name: z.string().optional() }),
  recipient: z.looseObject({ id: z.string().min(1) }),
  text: z.string().default(''),
  /** An Adaptive Card's `Action.Submit` data (an approval's Approve / Deny), with the card's activity as `replyToId`. */
  value: z.unknown().optional(),
  replyToId: z.string().optional(),
  /** Files and cards; see teams-media.ts for the ones read. */
  attachments: z
    .array(
      z.looseObject({
        contentType: z.string(),
        contentUrl: z.string().optional(),
        name: z.string().optional(),
        content: z.unknown().optional(),
      }),
    )
    .max(50)
    .default([]),
  entities: z
    .array(
      z.looseObject({
        type: z.string(),
        text: z.string().optional(),
        mentioned: z.looseObject({ id: z.string() }).optional(),
      }),
    )
    .default([]),
});

/**
 * Turns a verified activity into a queued message or an acknowledgement: `message` activities are
 * answered (the bot's @mentions taken out of the text), `conversationUpdate` and every other type
 * acknowledged with 200. The activity's `serviceUrl` must be the one the token was issued for, and
 * its `channelId` one the signing key is endorsed for.
 *
 * @param token - What the verified token vouches for (`verifyTeamsToken`).
 * @throws AppError 400 for a body that is not an activity; 401 when it is not the one the token vouches for.
 */
export function parseTeamsActivity(body: unknown, token: TeamsToken): Inbound {
  const activity = parseWith(activitySchema, body);
  if (activity.serviceUrl !== token.serviceUrl) {
    throw unauthorized("The activity's serviceUrl is not the token's.", 'invalid_token');
  }
  if (!endorses(token.endorsements, activity.channelId)) {
    throw unauthorized("The token's signing key is not endorsed for the activity's channel.", 'invalid_token');
  }
  if (activity.type !== 'message') return { kind: 'answer', answer: okAnswer() };
  const message = parseWith(messageSchema, body);
  // The bot's own messages echoed back would loop.
  if (message.from.id === message.recipient.id) return { kind: 'answer', answer: okAnswer() };
  const submit = parseTeamsSubmit(message);
  if (submit) return submit;
  const text = withoutMentionsOf(message.recipient.id, message.text, message.entities);
  const type = message.conversation.conversationType;
  const media = teamsMediaOf(message.attachments, message.serviceUrl);
  if (text === '' && media.length === 0) return { kind: 'answer', answer: okAnswer() };
  return {
    kind: 'message',
    message: {
      action: 'chat',
      text,
      from: message.from.id,
      ...(media.length ? { media } : {}),
      ...(message.from.name ? { fromName: message.from.name } : {}),
      place: type === undefined || type === 'personal' ? 'direct' : 'group',
      // The bot is `recipient`; a mention of it is a `mention` entity naming that id.
      addressed: message.entities.some((entity) => entity.type === 'mention' && entity.mentioned?.id === message.recipient.id),
      // A channel thread has its own conversation id (`…;messageid=…`), a chat one for all of it.
      conversation: message.conversation.id,
      dedupeKey: message.id,
      replyTo: { service_url: message.serviceUrl, conversation_id: message.conversation.id, activity_id: message.id },
    },
    ack: () => okAnswer(),
  };
}

/** The text without the `<at>Bot</at>` of each mention of the bot, spaces tidied. */
function withoutMentionsOf(botId: string, text: string, entities: z.output<typeof messageSchema>['entities']): string {
  let rest = text;
  for (const entity of entities) {
    if (entity.type === 'mention' && entity.mentioned?.id === botId && entity.text) rest = rest.split(entity.text).join(' ');
  }
  return rest.replace(/[ \t]{2,}/g, ' ').trim();
}
