import { z } from 'zod';
import type { HttpAnswer } from '../definition.js';

/**
 * Discord's numbers, named as discord-api-types names them (InteractionType,
 * InteractionResponseType, ComponentType, ButtonStyle, ApplicationCommandOptionType, MessageFlags;
 * https://discord.com/developers/docs/interactions/receiving-and-responding,
 * …/components/reference, …/interactions/application-commands).
 */
export const InteractionType = { Ping: 1, ApplicationCommand: 2, MessageComponent: 3 } as const;
export const InteractionResponseType = {
  Pong: 1,
  ChannelMessageWithSource: 4,
  DeferredChannelMessageWithSource: 5,
  DeferredMessageUpdate: 6,
  UpdateMessage: 7,
} as const;
export const ComponentType = { ActionRow: 1, Button: 2 } as const;
export const ButtonStyle = { Success: 3, Danger: 4 } as const;
export const OptionType = { String: 3, Attachment: 11 } as const;
const EPHEMERAL = 64; // MessageFlags.Ephemeral

/** An answer to an interaction that only its user sees. */
export function ephemeralAnswer(content: string): HttpAnswer {
  return { status: 200, body: { type: InteractionResponseType.ChannelMessageWithSource, data: { content, flags: EPHEMERAL } } };
}

/** What `parseDiscordInteraction` stored in `replyTo`; checked again because it comes back from the job store. */
export const discordReplyToSchema = z.object({ token: z.string().min(1) });
