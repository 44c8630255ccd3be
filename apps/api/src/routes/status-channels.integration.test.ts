import {
  discordKeys,
  eventually,
  type LocalServer,
  sendJson,
  slackAuthTest,
  startLocalServer,
  telegramUnauthorized,
  testPrefix,
} from '@switchboard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../test-support/start-gateway.js';
import { startTestWorker, type TestWorker } from '../test-support/start-worker.js';

const SLACK_TOKEN = 'xoxb-status-0123456789-abcdef';
const TELEGRAM_TOKEN = '110201543:AAstatus-refused-token-0123456789';

/**
 * `/status` reports a channel connected from evidence only: the platforms' cheapest calls
 * answered by a local server (Slack auth.test accepts the token, Telegram getMe refuses it),
 * checked by one of three processes, not by each.
 */
describe('channel health in /status', () => {
  let platform: LocalServer;
  let a: TestGateway;
  let b: TestGateway;
  let worker: TestWorker;

  beforeAll(async () => {
    platform = await startLocalServer((req, res) => {
      if (req.url === '/slack/api/auth.test') {
        return sendJson(
          res,
          200,
          req.headers.authorization === `Bearer ${SLACK_TOKEN}` ? slackAuthTest() : slackAuthTest('invalid_auth'),
        );
      }
      if (req.url === `/telegram/bot${TELEGRAM_TOKEN}/getMe`) return sendJson(res, 401, telegramUnauthorized());
      sendJson(res, 404, { ok: false });
    });
    const config = {
      hooks: {
        team: {
          type: 'slack',
          signingSecret: 'slack-signing-secret',
          botToken: SLACK_TOKEN,
          apiUrl: `${platform.url}/slack/api`,
        },
        tg: { type: 'telegram', botToken: TELEGRAM_TOKEN, secretToken: 'tg-secret', apiUrl: `${platform.url}/telegram` },
        dc: {
          type: 'discord',
          publicKey: discordKeys().publicKeyHex,
          applicationId: '1100000000000000001',
          apiUrl: `${platform.url}/discord`,
        },
        support: { type: 'generic', token: 'generic-token-0123456789' },
      },
      health: { channelCheckMs: 60_000 },
    };
    const prefix = testPrefix();
    a = await startGateway({ config, prefix });
    b = await startGateway({ config, prefix });
    worker = startTestWorker(a.settings);
  });

  afterAll(async () => {
    await worker?.close();
    await b?.close();
    await a?.close();
    await platform?.close();
  });

  const channels = async (gateway: TestGateway) => {
    const status = await (await fetch(`${gateway.url}/status`)).json();
    return {
      count: status.connected_channels,
      byName: Object.fromEntries(status.channels.map((c: { name: string }) => [c.name, c])),
    };
  };

  it('reports connected true, false or null (unknown) with when and why, the same from every process', async () => {
    const seen = await eventually(async () => {
      const found = await channels(a);
      expect(found.byName.team.checked_at).not.toBeNull();
      expect(found.byName.tg.checked_at).not.toBeNull();
      return found;
    });
    expect(seen.byName.team).toMatchObject({ type: 'slack', connected: true, last_error: null });
    expect(Date.parse(seen.byName.team.checked_at)).not.toBeNaN();
    expect(seen.byName.tg).toMatchObject({
      type: 'telegram',
      connected: false,
      last_error: "credentials: Hook 'tg': Telegram getMe failed with 401: Unauthorized",
    });
    // Discord without a bot token and a generic hook have nothing to check: unknown, not connected.
    expect(seen.byName.dc).toMatchObject({ connected: null, checked_at: null });
    expect(seen.byName.support).toMatchObject({ connected: null, checked_at: null });
    expect(seen.count).toBe(1);
    expect(await channels(b)).toEqual(seen);
  });

  it('asks each platform once per interval, however many processes run', async () => {
    const calls = (path: string) => platform.requests.filter((r) => r.url.endsWith(path)).length;
    expect([calls('/auth.test'), calls('/getMe')]).toEqual([1, 1]);
  });
});
