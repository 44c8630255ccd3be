import {
  discordApplication,
  discordKeys,
  discordUnauthorized,
  freePort,
  type LocalServer,
  sendJson,
  slackAuthTest,
  startLocalServer,
  telegramGetMe,
  telegramUnauthorized,
} from '@switchboard/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createHook, type Hook } from './hooks.js';
import type { ChannelConfig } from './registry.js';

/**
 * Each channel's credential check against a local server that answers the platform's cheapest
 * authenticated call as documented: the right token is accepted, any other refused.
 */
const SLACK_TOKEN = 'xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy';
const TELEGRAM_TOKEN = '110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
const DISCORD_TOKEN = 'MTEwMDAwMDAwMDAwMDAwMDAwMQ.GhJkLm.bot-token-for-tests';
const APPLICATION_ID = '1100000000000000001';
const keys = discordKeys();

let platform: LocalServer | undefined;
let hook: Hook | undefined;

afterEach(async () => {
  await hook?.close();
  await platform?.close();
  hook = platform = undefined;
});

/** The platform's API, answering the check for `validToken` (sent as `authorization` or in the path). */
async function start(
  config: (url: string) => ChannelConfig,
  answer: (valid: boolean, res: Parameters<typeof sendJson>[0]) => void,
  validToken: string,
) {
  platform = await startLocalServer((req, res) =>
    answer(req.headers.authorization?.endsWith(validToken) === true || req.url.includes(validToken), res),
  );
  hook = createHook('h', config(platform.url));
  return { platform, hook };
}

const slack = (token: string) => (url: string) =>
  ({ type: 'slack', signingSecret: 'slack-signing-secret', botToken: token, apiUrl: `${url}/api` }) as ChannelConfig;
const telegram = (token: string) => (url: string) =>
  ({ type: 'telegram', botToken: token, secretToken: 'tg-secret', apiUrl: url }) as ChannelConfig;
const discord =
  (botToken: string | undefined, applicationId = APPLICATION_ID) =>
  (url: string) =>
    ({
      type: 'discord',
      publicKey: keys.publicKeyHex,
      applicationId,
      apiUrl: `${url}/api/v10`,
      ...(botToken ? { botToken } : {}),
    }) as ChannelConfig;

const slackAnswer = (valid: boolean, res: Parameters<typeof sendJson>[0]) =>
  sendJson(res, 200, valid ? slackAuthTest() : slackAuthTest('invalid_auth'));
const telegramAnswer = (valid: boolean, res: Parameters<typeof sendJson>[0]) =>
  valid ? sendJson(res, 200, telegramGetMe()) : sendJson(res, 401, telegramUnauthorized());
const discordAnswer = (valid: boolean, res: Parameters<typeof sendJson>[0]) =>
  valid ? sendJson(res, 200, discordApplication(APPLICATION_ID, keys.publicKeyHex)) : sendJson(res, 401, discordUnauthorized());

describe('Slack', () => {
  it('calls auth.test with the bot token and reports connected', async () => {
    const { platform, hook } = await start(slack(SLACK_TOKEN), slackAnswer, SLACK_TOKEN);
    expect(await hook.checkCredentials?.()).toEqual({ connected: true });
    expect(platform.requests.map((r) => [r.method, r.url, r.headers.authorization])).toEqual([
      ['POST', '/api/auth.test', `Bearer ${SLACK_TOKEN}`],
    ]);
  });

  it('reports a refused token as not connected, with Slack’s reason and without the token', async () => {
    const { hook } = await start(slack('xoxb-revoked-0000000000'), slackAnswer, SLACK_TOKEN);
    const check = await hook.checkCredentials?.();
    expect(check).toEqual({ connected: false, reason: "Hook 'h': Slack auth.test failed: invalid_auth" });
  });
});

describe('Telegram', () => {
  it('calls getMe with the bot token and reports connected', async () => {
    const { platform, hook } = await start(telegram(TELEGRAM_TOKEN), telegramAnswer, TELEGRAM_TOKEN);
    expect(await hook.checkCredentials?.()).toEqual({ connected: true });
    expect(platform.requests.map((r) => [r.method, r.url])).toEqual([['GET', `/bot${TELEGRAM_TOKEN}/getMe`]]);
  });

  it('reports a 401 as not connected, never naming the token', async () => {
    const wrong = '110201543:AAwrongwrongwrongwrongwrongwrongwro';
    const { hook } = await start(telegram(wrong), telegramAnswer, TELEGRAM_TOKEN);
    const check = await hook.checkCredentials?.();
    expect(check).toEqual({ connected: false, reason: "Hook 'h': Telegram getMe failed with 401: Unauthorized" });
  });
});

describe('Discord', () => {
  it('calls GET /applications/@me with the bot token and reports connected', async () => {
    const { platform, hook } = await start(discord(DISCORD_TOKEN), discordAnswer, DISCORD_TOKEN);
    expect(await hook.checkCredentials?.()).toEqual({ connected: true });
    expect(platform.requests.map((r) => [r.method, r.url, r.headers.authorization])).toEqual([
      ['GET', '/api/v10/applications/@me', `Bot ${DISCORD_TOKEN}`],
    ]);
  });

  it('reports a token of another application as not connected', async () => {
    const { hook } = await start(discord(DISCORD_TOKEN, '1999999999999999999'), discordAnswer, DISCORD_TOKEN);
    const check = await hook.checkCredentials?.();
    expect(check?.connected).toBe(false);
    expect(check?.reason).toContain('belongs to application 1100000000000000001, not applicationId 1999999999999999999');
  });

  it('reports a refused bot token as not connected', async () => {
    const { hook } = await start(discord('wrong-bot-token-000'), discordAnswer, DISCORD_TOKEN);
    expect(await hook.checkCredentials?.()).toEqual({
      connected: false,
      reason: "Hook 'h': Discord GET /applications/@me failed with 401: 401: Unauthorized",
    });
  });

  it('reports unknown without a bot token, and calls nothing', async () => {
    const { platform, hook } = await start(discord(undefined), discordAnswer, DISCORD_TOKEN);
    expect((await hook.checkCredentials?.())?.connected).toBeNull();
    expect(platform.requests).toEqual([]);
  });
});

describe('any channel', () => {
  it('reports a platform it cannot reach as not connected, naming the error code', async () => {
    const port = await freePort();
    hook = createHook('h', slack(SLACK_TOKEN)(`http://127.0.0.1:${port}`));
    expect(await hook.checkCredentials?.()).toEqual({
      connected: false,
      reason: "Hook 'h': Slack auth.test could not reach the server (ECONNREFUSED)",
    });
  });

  it('has no check for a generic hook', () => {
    hook = createHook('h', { type: 'generic', token: 'generic-token-123' } as ChannelConfig);
    expect(hook.checkCredentials).toBeUndefined();
  });
});
