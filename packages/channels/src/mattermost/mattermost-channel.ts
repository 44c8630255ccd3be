import { joinUrl } from '@switchboard/http';
import { z } from 'zod';
import { defineChannel } from '../definition.js';
import { DeliveryError } from '../delivery-error.js';
import { sendLimitsSchema } from '../live/send-gate.js';
import { pieceKey } from '../piece-key.js';
import {
  callMattermost,
  judgeMattermostMe,
  type MattermostClient,
  mattermostReplyToSchema,
  replyRoot,
} from './mattermost-api.js';
import { isMattermostAction, mattermostApprovals, parseMattermostAction } from './mattermost-approvals.js';
import { parseMattermostRequest } from './parse-mattermost-request.js';
import { MATTERMOST_BODY_TYPES, readMattermostBody } from './read-mattermost-body.js';
import { verifyMattermostToken } from './verify-mattermost-token.js';

/** A post's longest message on Mattermost 5.0 and later (runes; UTF-16 units never count fewer). */
export const MATTERMOST_TEXT_LIMIT = 16_383;

/**
 * Mattermost through an outgoing webhook or a slash command (their token checked), replies
 * posted by a bot account through the REST API (`POST /api/v4/posts`) in the same channel and
 * thread.
 */
export const mattermost = defineChannel({
  type: 'mattermost',
  config: z.strictObject({
    /** The outgoing webhook's (or slash command's) token, sent in every request. */
    token: z.string().min(8),
    /** A second token, for a slash command serving the same hook as an outgoing webhook. */
    commandToken: z.string().min(8).optional(),
    /** The server's address, e.g. `https://chat.example.com`. */
    serverUrl: z.url({ protocol: /^https?$/ }),
    /** A bot account's access token (posts replies; needs to be in the channel). */
    botToken: z.string().min(8),
    /** The bot's own user id, whose posts are ignored. */
    botUserId: z.string().optional(),
    /**
     * Where Mattermost posts a click on an approval's buttons: this hook's own address as the
     * server can reach it (`https://<host>/hooks/<name>`). Approval buttons need it.
     */
    actionUrl: z.url({ protocol: /^https?$/ }).optional(),
    /** About ten posts a second per channel is what a server allows by default; kept well under. */
    sendLimits: sendLimitsSchema({ channel: { count: 1, perMs: 1000 } }),
  }),
  limits: { textLength: MATTERMOST_TEXT_LIMIT },
  bodyTypes: MATTERMOST_BODY_TYPES,
  secrets: (config) => [config.token, config.botToken, ...(config.commandToken ? [config.commandToken] : [])],

  receive(request, config) {
    const fields = readMattermostBody(request);
    // A click on our buttons carries no token: the HMAC in its context proves we made the button.
    if (isMattermostAction(fields)) return parseMattermostAction(fields, config.token);
    verifyMattermostToken(fields, config.commandToken ? [config.token, config.commandToken] : [config.token]);
    return parseMattermostRequest(fields, { botUserId: config.botUserId });
  },

  sendTarget(message, config) {
    const target = mattermostReplyToSchema.safeParse(message.replyTo);
    return target.success ? { key: target.data.channel_id, rules: [config.sendLimits.channel] } : null;
  },

  /**
   * Posts a part in the channel, in the thread of the post (or command) it answers. Its
   * `pending_post_id` is the piece's key, the same on every run of the job: the server answers a
   * create with a key it saw in the last 30 s with the post it made then (`deduplicateCreatePost`,
   * mattermost/mattermost server/channels/app/post.go, `pendingPostIDsCacheTTL = 30 * time.Second`),
   * so a retry after a crash between its post and our record of it does not post it twice. The
   * field is the one Mattermost's own clients send; the API reference does not list it.
   */
  async deliver({ message, text, index, meta }, { hook, config, http }) {
    const target = mattermostReplyToSchema.safeParse(message.replyTo);
    if (!target.success) throw new DeliveryError(`Hook '${hook}': the job holds no Mattermost channel`, false);
    const client: MattermostClient = { hook, serverUrl: config.serverUrl, botToken: config.botToken, http };
    const root = await replyRoot(client, target.data);
    const pending_post_id = pieceKey(hook, meta.jobId, index);
    const { channel_id } = target.data;
    await callMattermost(client, 'create post', 'POST', 'posts', { channel_id, message: text, root_id: root, pending_post_id });
  },

  /** Approve / Deny as message attachment buttons whose clicks Mattermost posts to `actionUrl`. */
  approvals: mattermostApprovals,

  /**
   * A post's files: `GET /api/v4/files/{file_id}` on the configured server with the bot token
   * (api.mattermost.com, Files: "Get a file"; the bot must be able to read the channel). The token
   * goes only to `serverUrl`, which the config names.
   */
  media: {
    locate: async (ref, { config }) => ({
      url: joinUrl(config.serverUrl, `api/v4/files/${encodeURIComponent(ref.ref)}`),
      headers: { authorization: `Bearer ${config.botToken}` },
    }),
  },

  /** `GET /users/me`: the cheapest call that proves the bot token is valid. */
  checkCredentials({ hook, config, http }) {
    return judgeMattermostMe({ hook, serverUrl: config.serverUrl, botToken: config.botToken, http });
  },
});
