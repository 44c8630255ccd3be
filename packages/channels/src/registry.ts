import type { z } from 'zod';
import type { ChannelDefinition } from './definition.js';
import { discord } from './discord/discord-channel.js';
import { generic } from './generic/generic-channel.js';
import { mapped } from './mapped/mapped-channel.js';
import { mattermost } from './mattermost/mattermost-channel.js';
import { slack } from './slack/slack-channel.js';
import { teams } from './teams/teams-channel.js';
import { telegram } from './telegram/telegram-channel.js';
import { whatsapp } from './whatsapp/whatsapp-channel.js';

/**
 * Every channel Switchboard speaks. The config package builds the `hooks` schema from this list,
 * and the API and the worker find a hook's channel here: a new channel is its folder plus one
 * line below.
 */
export const channelRegistry = [generic, slack, telegram, discord, whatsapp, mattermost, teams, mapped] as const;

type ConfigOf<D> = D extends ChannelDefinition<infer Schema, infer Type> ? { type: Type } & z.output<Schema> : never;

/** A hook's channel-specific config, for any registered channel (`type` tells which). */
export type ChannelConfig = ConfigOf<(typeof channelRegistry)[number]>;

export type ChannelType = ChannelConfig['type'];

const byType = new Map<string, ChannelDefinition>(channelRegistry.map((channel) => [channel.type, channel]));

/** The channel of a hook `type`; undefined for a type no channel has. */
export function findChannel(type: string): ChannelDefinition | undefined {
  return byType.get(type);
}
