export * from './eventually.js';
export * from './http-server.js';
export * from './openai-upstream.js';
export * from './platforms/discord.js';
export * from './platforms/signed-request.js';
export * from './platforms/slack.js';
export * from './platforms/telegram.js';
export * from './redis-prefix.js';
