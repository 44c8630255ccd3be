import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import {
  type APIApplication,
  type APIChatInputApplicationCommandGuildInteraction,
  type APIMessage,
  type APIMessageComponentButtonInteraction,
  type APIPingInteraction,
  type APIUser,
  ApplicationCommandOptionType,
  ApplicationCommandType,
  type ApplicationFlags,
  ApplicationIntegrationType,
  ChannelType,
  ComponentType,
  type GuildMemberFlags,
  InteractionContextType,
  InteractionType,
  Locale,
  MessageType,
  type RESTError,
} from 'discord-api-types/v10';
import { jsonRequest, SAMPLE_NOW, type SignedRequest } from './signed-request.js';

/**
 * Discord as the interactions endpoint and the webhook API document them: Ed25519-signed
 * interactions in, the message objects that edits and follow-ups answer with, and the
 * application object `GET /applications/@me` answers a bot token with. Keys are real,
 * made here, so tests exercise the same crypto Discord uses.
 */

export interface DiscordKeys {
  privateKey: KeyObject;
  /** The raw 32-byte public key in hex, as the Developer Portal shows it. */
  publicKeyHex: string;
}

export function discordKeys(): DiscordKeys {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const publicKeyHex = publicKey.export({ format: 'der', type: 'spki' }).subarray(12).toString('hex');
  return { privateKey, publicKeyHex };
}

/** `X-Signature-Ed25519` (hex, over timestamp + raw body) and `X-Signature-Timestamp`. */
export function discordSignedHeaders(privateKey: KeyObject, rawBody: Buffer, timestamp: string): Record<string, string> {
  const signature = sign(null, Buffer.concat([Buffer.from(timestamp), rawBody]), privateKey).toString('hex');
  return { 'x-signature-ed25519': signature, 'x-signature-timestamp': timestamp };
}

/** An interaction as Discord sends it, signed with `privateKey`. */
export function discordRequest(
  privateKey: KeyObject,
  body: unknown,
  timestamp = String(Math.floor(SAMPLE_NOW / 1000)),
): SignedRequest {
  const request = jsonRequest(body);
  Object.assign(request.headers, discordSignedHeaders(privateKey, request.rawBody, timestamp));
  return request;
}

/** A bit field with no bit set (the flag enums name only the bits). */
const NO_FLAGS = 0;

/** The bot of the fixtures: the application's own user. */
const BOT_USER = {
  id: '1100000000000000001',
  username: 'Switchboard',
  discriminator: '0',
  global_name: null,
  avatar: null,
  bot: true,
} satisfies APIUser;

/**
 * The PING Discord sends to check an interactions endpoint
 * (https://discord.com/developers/docs/interactions/receiving-and-responding#receiving-an-interaction:
 * "type 1, PING"), typed as discord-api-types' `APIPingInteraction`.
 */
export function discordPing(overrides: Record<string, unknown> = {}) {
  const ping = {
    id: '1329481234567890000',
    application_id: '1100000000000000001',
    type: InteractionType.Ping,
    token: 'ping-token',
    version: 1,
    app_permissions: '0',
    entitlements: [],
    authorizing_integration_owners: {},
    attachment_size_limit: 10_485_760,
    user: { ...BOT_USER, id: '800000000000000003', username: 'discord', bot: false },
  } satisfies APIPingInteraction;
  return { ...ping, ...overrides };
}

/**
 * A guild slash command `/ask prompt:<text>`; override any top-level field per test (loose on
 * purpose: tests send malformed interactions too). Shaped like the "Example Interaction" of
 * https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object
 * (type 2, token, member with user and roles, id, guild_id, app_permissions, locales, data with
 * one string option, channel_id), with the fields the current API adds (channel, entitlements,
 * authorizing_integration_owners, context), typed as `APIChatInputApplicationCommandGuildInteraction`.
 */
export function discordCommand(overrides: Record<string, unknown> = {}) {
  const command = {
    id: '1329481234567890123',
    application_id: '1100000000000000001',
    type: InteractionType.ApplicationCommand,
    token: 'aW50ZXJhY3Rpb246MTMyOTQ4MTIzNDU2Nzg5MDEyMzpzZWNyZXQ',
    version: 1,
    guild_id: '900000000000000001',
    guild: { id: '900000000000000001', locale: Locale.EnglishUS, features: [] },
    channel_id: '900000000000000002',
    channel: { id: '900000000000000002', type: ChannelType.GuildText, name: 'general', guild_id: '900000000000000001' },
    member: {
      user: { id: '800000000000000003', username: 'ada', discriminator: '0', global_name: 'Ada', avatar: null },
      roles: [],
      premium_since: null,
      permissions: '2147483647',
      pending: false,
      nick: null,
      mute: false,
      deaf: false,
      joined_at: '2024-03-13T19:19:14.040000+00:00',
      flags: NO_FLAGS as GuildMemberFlags,
    },
    app_permissions: '442368',
    locale: Locale.EnglishUS,
    guild_locale: Locale.EnglishUS,
    entitlements: [],
    authorizing_integration_owners: { [ApplicationIntegrationType.GuildInstall]: '900000000000000001' },
    context: InteractionContextType.Guild,
    attachment_size_limit: 10_485_760,
    data: {
      id: '1200000000000000004',
      name: 'ask',
      type: ApplicationCommandType.ChatInput,
      options: [{ name: 'prompt', type: ApplicationCommandOptionType.String, value: 'What is a monad?' }],
    },
  } satisfies APIChatInputApplicationCommandGuildInteraction;
  return { ...command, ...overrides };
}

/**
 * The message object Discord answers a created or edited message with
 * (https://discord.com/developers/docs/resources/message#message-object): id, channel_id, author,
 * content, timestamp, edited_timestamp, tts, mentions, attachments, embeds, pinned, type, flags…
 * typed as `APIMessage`. An interaction's response and follow-ups are webhook messages of the
 * application (`webhook_id`, `application_id`, `interaction_metadata`).
 */
export function discordMessage(content: string, overrides: Partial<APIMessage> = {}): APIMessage {
  return {
    id: '1329481299999999999',
    type: MessageType.ChatInputCommand,
    content,
    channel_id: '900000000000000002',
    author: BOT_USER,
    attachments: [],
    embeds: [],
    mentions: [],
    mention_roles: [],
    mention_everyone: false,
    pinned: false,
    tts: false,
    timestamp: '2025-01-15T12:00:01.000000+00:00',
    edited_timestamp: null,
    components: [],
    webhook_id: '1100000000000000001',
    application_id: '1100000000000000001',
    ...overrides,
  };
}

/** What `GET /applications/@me` answers a valid bot token with (HTTP 200; https://discord.com/developers/docs/resources/application#get-current-application). */
export function discordApplication(id: string, verifyKeyHex: string, overrides: Partial<APIApplication> = {}): APIApplication {
  return {
    id,
    name: 'Switchboard',
    icon: null,
    description: '',
    bot_public: true,
    bot_require_code_grant: false,
    verify_key: verifyKeyHex,
    summary: '',
    team: null,
    flags: NO_FLAGS as ApplicationFlags,
    flags_new: '0',
    bot: { ...BOT_USER, id },
    ...overrides,
  };
}

/** Discord's answer to a request with a token it refuses (HTTP 401; https://discord.com/developers/docs/topics/opcodes-and-status-codes#json). */
export function discordUnauthorized(): RESTError {
  return { message: '401: Unauthorized', code: 0 };
}

/**
 * A press of a button under one of the application's messages: a MESSAGE_COMPONENT interaction
 * (type 3, https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object:
 * `data.custom_id` and `data.component_type` 2, the `message` the button is on, who pressed it as
 * `member.user` in a server), typed as discord-api-types' `APIMessageComponentButtonInteraction`.
 * The button is taken from the message's own components: a test presses what the bot posted.
 */
let presses = 0;

export function discordButtonPress(
  post: { id: string; content: string; components?: unknown[] },
  label: string,
  user: { id: string; username: string; global_name: string },
  token = 'aW50ZXJhY3Rpb246cHJlc3M6c2VjcmV0',
) {
  const rows = (post.components ?? []) as { components: { label?: string; custom_id?: string }[] }[];
  const button = rows.flatMap((row) => row.components).find((b) => b.label === label);
  if (!button?.custom_id) throw new Error(`the message ${post.id} has no '${label}' button`);
  const command = discordCommand();
  const press = {
    ...command,
    id: String(1_329_481_350_000_000_000n + BigInt(++presses)),
    type: InteractionType.MessageComponent,
    token,
    member: { ...command.member, user: { ...user, discriminator: '0', avatar: null } },
    message: discordMessage(post.content, { id: post.id }),
    data: { custom_id: button.custom_id, component_type: ComponentType.Button },
  } satisfies APIMessageComponentButtonInteraction;
  return press;
}
