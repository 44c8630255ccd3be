import { invalidRequest, type MediaRef } from '@switchboard/protocol';
import { z } from 'zod';
import type { Inbound } from '../definition.js';
import { parseWith } from '../inbound.js';
import { mediaKindOf } from '../media/media-kind.js';
import { parseDiscordComponent } from './discord-approvals.js';
import { ephemeralAnswer, InteractionResponseType, InteractionType, OptionType } from './discord-wire.js';

const interactionTypeSchema = z.looseObject({ type: z.int() });

/** A command option; subcommands (type 1) and groups (type 2) hold options of their own. */
interface CommandOption {
  type: number;
  value?: unknown;
  options?: CommandOption[] | undefined;
}
const optionSchema: z.ZodType<CommandOption> = z.looseObject({
  type: z.int(),
  value: z.unknown().optional(),
  get options() {
    return z.array(optionSchema).max(25).optional();
  },
});

/** The first string option, looked for inside subcommands and subcommand groups too. */
function firstString(options: CommandOption[] | undefined): unknown {
  for (const option of options ?? []) {
    if (option.type === OptionType.String) return option.value;
    const nested = firstString(option.options);
    if (nested !== undefined) return nested;
  }
  return undefined;
}

/** The ids of the attachment options (type 11), inside subcommands and groups too. */
function attachmentIds(options: CommandOption[] | undefined): string[] {
  return (options ?? []).flatMap((option) =>
    option.type === OptionType.Attachment && typeof option.value === 'string' ? [option.value] : attachmentIds(option.options),
  );
}

/**
 * A file given to an attachment option, as `data.resolved.attachments` holds it (discord-api-types
 * `APIAttachment`): a CDN `url` (signed, public, expiring), and `duration_secs` on a voice message.
 */
const attachmentSchema = z.looseObject({
  filename: z.string(),
  content_type: z.string().optional(),
  size: z.int().nonnegative().optional(),
  url: z.string().min(1),
  duration_secs: z.number().nonnegative().optional(),
});

/** Loose: interactions carry guild, locale, permissions, entitlements… none of which matter here. */
const commandSchema = z.looseObject({
  id: z.string().min(1),
  token: z.string().min(1),
  data: z.looseObject({
    options: z.array(optionSchema).max(25).optional(),
    resolved: z.looseObject({ attachments: z.record(z.string(), attachmentSchema).optional() }).optional(),
  }),
  // In a guild the user is under `member`; in a DM it is top-level `user`.
  member: z.looseObject({ user: z.looseObject({ id: z.string().min(1), global_name: z.string().nullish() }) }).optional(),
  user: z.looseObject({ id: z.string().min(1), global_name: z.string().nullish() }).optional(),
  /** Set when the command ran in a server (a guild); absent in a DM (discord.com/developers/docs/interactions/receiving-and-responding). */
  guild_id: z.string().min(1).optional(),
  channel_id: z.string().min(1).optional(),
  channel: z.looseObject({ id: z.string().min(1) }).optional(),
});

/**
 * Turns a verified interaction into an answer (PONG, or an ephemeral hint when the command has no
 * prompt) or a queued message acknowledged with a deferred response, which the reply later edits.
 *
 * @throws AppError 400 for interaction types other than PING, APPLICATION_COMMAND and MESSAGE_COMPONENT, or a malformed body.
 */
export function parseDiscordInteraction(body: unknown): Inbound {
  const { type } = parseWith(interactionTypeSchema, body);
  if (type === InteractionType.Ping)
    return { kind: 'answer', answer: { status: 200, body: { type: InteractionResponseType.Pong } } };
  // A press of a button under one of the bot's messages: an approval's Approve / Deny.
  if (type === InteractionType.MessageComponent) return parseDiscordComponent(body);
  if (type !== InteractionType.ApplicationCommand) throw invalidRequest(`Unsupported interaction type ${type}.`, 'type');

  const interaction = parseWith(commandSchema, body);
  const prompt = firstString(interaction.data.options);
  const media = mediaOf(interaction.data);
  if ((typeof prompt !== 'string' || prompt.trim() === '') && media.length === 0) {
    return { kind: 'answer', answer: ephemeralAnswer('Please give a prompt.') };
  }
  const user = interaction.member?.user ?? interaction.user;
  const from = user?.id;
  if (!from) throw invalidRequest("Invalid 'user': the interaction names no user.", 'user');
  const channel = interaction.channel_id ?? interaction.channel?.id;
  if (!channel) throw invalidRequest("Invalid 'channel_id': the interaction names no channel.", 'channel_id');
  return {
    kind: 'message',
    message: {
      action: 'chat',
      text: typeof prompt === 'string' ? prompt : '',
      from,
      ...(media.length ? { media } : {}),
      ...(user?.global_name ? { fromName: user.global_name } : {}),
      place: interaction.guild_id ? 'group' : 'direct',
      // A slash command is always addressed to the bot it names.
      addressed: true,
      conversation: `${channel}:${from}`,
      dedupeKey: interaction.id,
      // The channel, for a reply that outlives the token (posted with the bot's token instead).
      replyTo: { token: interaction.token, channel_id: channel },
    },
    // Discord allows three seconds for the first answer; the model gets fifteen minutes this way.
    ack: () => ({ status: 200, body: { type: InteractionResponseType.DeferredChannelMessageWithSource } }),
    // Dropped by the hook's `access`: a deferred answer would show "thinking…" for ever.
    ignored: () => ephemeralAnswer('This bot does not answer here.'),
  };
}

/** The files given to the command's attachment options, by their CDN URL. */
function mediaOf(data: z.output<typeof commandSchema>['data']): MediaRef[] {
  return attachmentIds(data.options).flatMap((id) => {
    const file = data.resolved?.attachments?.[id];
    if (!file) return [];
    return [
      {
        kind: mediaKindOf(file.content_type),
        ref: file.url,
        name: file.filename.slice(0, 256),
        ...(file.content_type ? { type: file.content_type.slice(0, 128) } : {}),
        ...(file.size !== undefined ? { size: file.size } : {}),
        ...(file.duration_secs !== undefined ? { seconds: Math.min(file.duration_secs, 86_400) } : {}),
      },
    ];
  });
}
