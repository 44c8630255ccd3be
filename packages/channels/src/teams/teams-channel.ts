import { z } from 'zod';
import { defineChannel } from '../definition.js';
import { DeliveryError } from '../delivery-error.js';
import { parseJsonBody } from '../inbound.js';
import { sendLimitsSchema } from '../live/send-gate.js';
import { parseTeamsActivity } from './parse-teams-activity.js';
import { teamsAccessToken, teamsApp } from './teams-access-token.js';
import { teamsApprovals } from './teams-approvals.js';
import { callConnector, teamsReplyToSchema } from './teams-connector.js';
import { locateTeamsFile } from './teams-media.js';
import { verifyTeamsToken } from './verify-teams-token.js';

/**
 * Teams refuses an activity over about 28 KB. Cutting at 8,000 UTF-16 units keeps even text of
 * three-byte characters (CJK) inside it, with room for the envelope.
 */
export const TEAMS_TEXT_LIMIT = 8_000;

/**
 * Microsoft Teams through the Bot Framework: activities in, each with a Connector JWT validated
 * against the OpenID metadata's keys; replies out to
 * `{serviceUrl}/v3/conversations/{id}/activities/{replyToId}` with a client-credentials token.
 */
export const teams = defineChannel({
  type: 'teams',
  config: z.strictObject({
    /** The bot's Microsoft App ID (the tokens' audience, the client id of its own token). */
    appId: z.string().min(1),
    /** The app's client secret. */
    appPassword: z.string().min(8),
    /** Single-tenant bots: the tenant id, whose token endpoint then issues the bot's tokens. */
    tenantId: z
      .string()
      .regex(/^[A-Za-z0-9.-]{1,100}$/)
      .optional(),
    /** Where the Connector's signing keys are found. */
    openIdMetadataUrl: z.url().default('https://login.botframework.com/v1/.well-known/openidconfiguration'),
    /** The token endpoint; by default Entra ID's for `tenantId`, else for `botframework.com`. */
    tokenUrl: z.url().optional(),
    /** Teams throttles a bot past a few messages a second in one conversation; 3 per 3 s stays under it. */
    sendLimits: sendLimitsSchema({ conversation: { count: 3, perMs: 3000 } }),
  }),
  limits: { textLength: TEAMS_TEXT_LIMIT },
  secrets: (config) => [config.appPassword],

  async receive(request, config) {
    const token = await verifyTeamsToken(request, { appId: config.appId, openIdMetadataUrl: config.openIdMetadataUrl });
    return parseTeamsActivity(parseJsonBody(request.rawBody), token);
  },

  sendTarget(message, config) {
    const target = teamsReplyToSchema.safeParse(message.replyTo);
    return target.success ? { key: target.data.conversation_id, rules: [config.sendLimits.conversation] } : null;
  },

  /** Replies to the activity in its conversation (a channel thread, a chat). */
  async deliver({ message, text }, context) {
    const label = `Hook '${context.hook}': Teams reply`;
    const target = teamsReplyToSchema.safeParse(message.replyTo);
    if (!target.success) throw new DeliveryError(`${label}: the job holds no Teams conversation and activity`, false);
    const { activity_id } = target.data;
    await callConnector(context, label, 'POST', target.data, {
      type: 'message',
      text,
      textFormat: 'markdown',
      replyToId: activity_id,
    });
  },

  /** Files sent in a personal chat (pre-authenticated download URLs) and pasted images (with the Connector token on Microsoft hosts). */
  media: { locate: locateTeamsFile },

  approvals: teamsApprovals,

  /** Asks for a Connector token: proves the app id and password. */
  async checkCredentials({ hook, config, http }) {
    try {
      await teamsAccessToken(teamsApp(hook, config, http));
      return { connected: true };
    } catch (err) {
      if (err instanceof DeliveryError) return { connected: false, reason: err.message };
      throw err;
    }
  },
});
