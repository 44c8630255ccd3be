export type { ApprovalClick, ApprovalOutcome, PromptRef, SettledOutcome } from './approvals/approval.js';
export type { CredentialCheck } from './credential-check.js';
export * from './definition.js';
export { DeliveryError } from './delivery-error.js';
export { DISCORD_TEXT_LIMIT } from './discord/discord-channel.js';
export { type EventsDestination, sendDeliveryEvent } from './events/send-delivery-event.js';
export { genericBodySchema } from './generic/parse-generic-request.js';
export {
  closeHooks,
  createHook,
  createHooks,
  credentialChecks,
  type Hook,
  type HookApprovals,
  type HookOptions,
} from './hooks.js';
export { DELIVERY_TIMEOUT_MS, DeliveryClient } from './http.js';
export type { FeedEvent, FinalReply, JobFeed, LiveJob, LiveReply } from './live/live-reply.js';
export type { SendGate, SendRule } from './live/send-gate.js';
export { splitMarkdown } from './live/split-markdown.js';
export { standardWebhooksSecretSchema } from './mapped/mapped-config.js';
export { MATTERMOST_TEXT_LIMIT } from './mattermost/mattermost-channel.js';
export { MediaGoneError, MediaHostRefused, type MediaLocation } from './media/media-location.js';
export * from './registry.js';
export { markdownToSlackMrkdwn } from './rich-text/slack-mrkdwn.js';
export { markdownToTelegramHtml } from './rich-text/telegram-html.js';
export { routeDelivery, targetKeysProblem } from './route-delivery.js';
export { SLACK_TEXT_LIMIT } from './slack/slack-channel.js';
export { splitText } from './split-text.js';
export { TEAMS_TEXT_LIMIT } from './teams/teams-channel.js';
export { TELEGRAM_TEXT_LIMIT } from './telegram/telegram-channel.js';
export { WHATSAPP_TEXT_LIMIT } from './whatsapp/whatsapp-channel.js';
