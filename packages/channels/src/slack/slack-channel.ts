import { joinUrl } from '@switchboard/http';
import { z } from 'zod';
import { checkWith } from '../credential-check.js';
import { defineChannel } from '../definition.js';
import { DeliveryError } from '../delivery-error.js';
import { parseJsonBody } from '../inbound.js';
import { liveConfigShape } from '../live/live-config.js';
import { sendLimitsSchema } from '../live/send-gate.js';
import { platformFileHost } from '../media/file-host.js';
import { MediaHostRefused } from '../media/media-location.js';
import { markdownToSlackMrkdwn } from '../rich-text/slack-mrkdwn.js';
import { parseSlackEvent } from './parse-slack-event.js';
import { judgeSlackAuthTest } from './slack-api-result.js';
import { isFormBody, parseSlackInteraction, slackApprovals } from './slack-approvals.js';
import { callSlack, slackReplyToSchema } from './slack-call.js';
import { SLACK_STREAM_LIMIT, slackLive } from './slack-live.js';
import { verifySlackSignature } from './verify-slack-signature.js';

/** Slack truncates `text` beyond 40,000 characters, so longer replies go out as several messages. */
export const SLACK_TEXT_LIMIT = 40_000;

/** Slack through the Events API: signed requests in, `chat.postMessage` in the message's thread out. */
export const slack = defineChannel({
  type: 'slack',
  config: z.strictObject({
    signingSecret: z.string().min(8),
    botToken: z.string().min(8),
    /** The bot's own user id, to ignore its messages (bot_id covers most cases). */
    botUserId: z.string().optional(),
    apiUrl: z.url().default('https://slack.com/api'),
    ...liveConfigShape(1000),
    /** Slack's guidance: about one message a second in a channel (short bursts aside). */
    sendLimits: sendLimitsSchema({ channel: { count: 1, perMs: 1000 } }),
  }),
  limits: { textLength: SLACK_TEXT_LIMIT },
  secrets: (config) => [config.signingSecret, config.botToken],

  /** Events API callbacks are JSON; interactivity payloads (button clicks) a form with one `payload` field. */
  bodyTypes: ['application/json', 'application/x-www-form-urlencoded'],

  receive(request, config) {
    verifySlackSignature(request, config.signingSecret);
    if (isFormBody(request)) return parseSlackInteraction(request.rawBody);
    return parseSlackEvent(parseJsonBody(request.rawBody), { botUserId: config.botUserId });
  },

  live: { textLength: SLACK_STREAM_LIMIT, open: slackLive },

  /** Another hook's replies into a channel (`channel: C123`), in a thread when `thread` is a message ts. */
  target: {
    schema: z.strictObject({ channel: z.string().min(1), thread: z.string().optional() }),
    replyTo: (target) => ({
      channel: String(target.channel),
      ...(typeof target.thread === 'string' && target.thread !== '' ? { thread_ts: target.thread } : {}),
    }),
  },

  sendTarget(message, config) {
    const target = slackReplyToSchema.safeParse(message.replyTo);
    return target.success ? { key: target.data.channel, rules: [config.sendLimits.channel] } : null;
  },

  /** Posts a part in mrkdwn rendered from its Markdown, as live replies' posts and updates are. */
  async deliver({ message, text }, context) {
    const target = slackReplyToSchema.safeParse(message.replyTo);
    if (!target.success)
      throw new DeliveryError(`Hook '${context.hook}': Slack chat.postMessage: the job holds no Slack channel`, false);
    await callSlack(context, 'chat.postMessage', {
      channel: target.data.channel,
      text: markdownToSlackMrkdwn(text),
      ...(target.data.thread_ts ? { thread_ts: target.data.thread_ts } : {}),
    });
  },

  approvals: slackApprovals,

  /**
   * A file's url_private(_download), fetched with the bot token as Slack requires
   * (docs.slack.dev/messaging/working-with-files) — and only from Slack's file hosts (or the
   * configured apiUrl's origin): the URL comes in an event, and the token goes nowhere else.
   */
  media: {
    locate: async (ref, { config }) => {
      if (!slackFileHost(ref.ref, config.apiUrl)) throw new MediaHostRefused('not a Slack file host');
      return { url: ref.ref, headers: { authorization: `Bearer ${config.botToken}` } };
    },
  },

  /** `auth.test`: the cheapest call that proves the bot token is valid. */
  checkCredentials({ hook, config, http }) {
    const label = `Hook '${hook}': Slack auth.test`;
    const call = () =>
      http.send({
        label,
        method: 'POST',
        url: joinUrl(config.apiUrl, 'auth.test'),
        headers: { authorization: `Bearer ${config.botToken}` },
      });
    return checkWith(call, (reply) => judgeSlackAuthTest(label, reply, [config.botToken, config.signingSecret]));
  },
});

/** Slack's own HTTPS file hosts (files.slack.com, slack-files.com, slack-edge.com), or the origin `apiUrl` names. */
export function slackFileHost(url: string, apiUrl: string): boolean {
  return platformFileHost(url, apiUrl, ['slack.com', 'slack-files.com', 'slack-edge.com']);
}
