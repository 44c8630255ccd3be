export * from './definition.js';
export { DeliveryError } from './delivery-error.js';
export { DISCORD_TEXT_LIMIT } from './discord/discord-channel.js';
export { closeHooks, createHook, createHooks, type Hook } from './hooks.js';
export { DELIVERY_TIMEOUT_MS } from './http.js';
export * from './registry.js';
export { SLACK_TEXT_LIMIT } from './slack/slack-channel.js';
export { splitText } from './split-text.js';
export { TELEGRAM_TEXT_LIMIT } from './telegram/telegram-channel.js';
