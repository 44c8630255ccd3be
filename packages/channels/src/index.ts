export * from './channel.js';
export { closeHookAdapters, createAdapter, createHookAdapters, type HookAdapter } from './create-adapter.js';
export { DISCORD_TEXT_LIMIT, DiscordAdapter } from './discord/discord-adapter.js';
export { GenericAdapter } from './generic/generic-adapter.js';
export { verifyGenericToken } from './generic/verify-generic-token.js';
export { DELIVERY_TIMEOUT_MS } from './http.js';
export { SLACK_TEXT_LIMIT, SlackAdapter } from './slack/slack-adapter.js';
export { splitText } from './split-text.js';
export { TELEGRAM_TEXT_LIMIT, TelegramAdapter } from './telegram/telegram-adapter.js';
