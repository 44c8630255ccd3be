import type { InboundMessage } from '@switchboard/protocol';
import {
  type FakeBotFramework,
  jsonRequest,
  sendJson,
  startFakeBotFramework,
  TEAMS_APP_ID,
  teamsConversationUpdate,
  teamsMessageActivity,
} from '@switchboard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHook, type Hook } from '../hooks.js';
import { deliveryErrorFrom } from '../test-support/errors.js';
import { teams as teamsChannel } from './teams-channel.js';

const APP_PASSWORD = 'teams-app-password-0123';
const META = { jobId: 'job_abc123', hook: 'teams', model: 'local/echo', created: 1_736_942_400 };

let framework: FakeBotFramework;
let hook: Hook;
let serviceUrl: string;

beforeAll(async () => {
  framework = await startFakeBotFramework({ appId: TEAMS_APP_ID, appPassword: APP_PASSWORD });
  serviceUrl = `${framework.url}/`;
  hook = hookWith();
});

afterAll(async () => {
  await hook?.close();
  await framework?.close();
});

function hookWith(appPassword = APP_PASSWORD) {
  return createHook('teams', {
    type: 'teams' as const,
    ...teamsChannel.config.parse({
      appId: TEAMS_APP_ID,
      appPassword,
      openIdMetadataUrl: `${framework.url}${framework.metadataPath}`,
      tokenUrl: `${framework.url}${framework.tokenPath}`,
    }),
  });
}

/** An activity as the Connector sends it: JSON with a Bearer JWT (now, by the real clock). */
const activityRequest = (body: unknown, token: string | undefined) =>
  jsonRequest(body, token ? { authorization: `Bearer ${token}` } : {}, Date.now());

const message = (activityId: string): InboundMessage => ({
  action: 'chat',
  text: 'What is a monad?',
  from: '29:ada',
  conversation: '19:thread@thread.tacv2',
  dedupeKey: activityId,
  replyTo: { service_url: serviceUrl, conversation_id: '19:thread@thread.tacv2', activity_id: activityId },
});

describe('Teams channel: receiving', () => {
  it('accepts an activity whose token the issuer signed for our app and its serviceUrl', async () => {
    const inbound = await hook.receive(activityRequest(teamsMessageActivity(serviceUrl), await framework.sign(serviceUrl)));
    expect(inbound.kind === 'message' && inbound.message.text).toBe('What is a monad?');
    const update = await hook.receive(activityRequest(teamsConversationUpdate(serviceUrl), await framework.sign(serviceUrl)));
    expect(update).toEqual({ kind: 'answer', answer: { status: 200, body: { ok: true } } });
  });

  it('answers 401 invalid_token for a missing, foreign, expired, misdirected or mis-issued token', async () => {
    const body = teamsMessageActivity(serviceUrl);
    const tokens = [
      undefined,
      'not.a.jwt',
      await framework.sign(serviceUrl, { foreign: true }),
      await framework.sign(serviceUrl, { expiresIn: '-10min' }),
      await framework.sign(serviceUrl, { audience: 'another-app' }),
      await framework.sign(serviceUrl, { issuer: 'https://sts.windows.net/x/' }),
      await framework.sign('https://other.example.com/'),
    ];
    for (const token of tokens) {
      await expect(hook.receive(activityRequest(body, token))).rejects.toMatchObject({ status: 401, code: 'invalid_token' });
    }
  });

  it('allows five minutes of clock skew on expiry, as the Bot Framework does', async () => {
    const token = await framework.sign(serviceUrl, { expiresIn: '-2min' });
    expect((await hook.receive(activityRequest(teamsMessageActivity(serviceUrl), token))).kind).toBe('message');
  });

  it('answers 503 signing_keys_unavailable, not 401, while the OpenID metadata cannot be read', async () => {
    const unreachable = createHook('teams', {
      type: 'teams' as const,
      ...teamsChannel.config.parse({
        appId: TEAMS_APP_ID,
        appPassword: APP_PASSWORD,
        openIdMetadataUrl: 'http://127.0.0.1:9/v1/.well-known/openidconfiguration',
      }),
    });
    try {
      const request = activityRequest(teamsMessageActivity(serviceUrl), await framework.sign(serviceUrl));
      for (let i = 0; i < 2; i++) {
        await expect(unreachable.receive(request)).rejects.toMatchObject({ status: 503, code: 'signing_keys_unavailable' });
      }
    } finally {
      await unreachable.close();
    }
  });

  it('reads the OpenID metadata once, not per activity', async () => {
    const before = framework.server.requests.filter((r) => r.url === framework.metadataPath).length;
    for (let i = 0; i < 3; i++)
      await hook.receive(activityRequest(teamsMessageActivity(serviceUrl), await framework.sign(serviceUrl)));
    expect(framework.server.requests.filter((r) => r.url === framework.metadataPath).length).toBe(before);
  });
});

describe('Teams channel: replying', () => {
  it('replies to the activity in its conversation with a client-credentials token, cached between replies', async () => {
    const issued = framework.tokensIssued();
    await hook.deliver(message('1001'), 'A monad is…', 0, META);
    await hook.deliver(message('1002'), 'Another answer', 0, META);
    expect(framework.tokensIssued() - issued).toBeLessThanOrEqual(1);
    const sent = framework.server.requests.filter((r) => r.url.startsWith('/v3/conversations/')).slice(-2);
    expect(sent[0]?.url).toBe(`/v3/conversations/${encodeURIComponent('19:thread@thread.tacv2')}/activities/1001`);
    expect(sent[0]?.json).toEqual({ type: 'message', text: 'A monad is…', textFormat: 'markdown', replyToId: '1001' });
    expect(framework.replies.slice(-2).map((r) => r.text)).toEqual(['A monad is…', 'Another answer']);
  });

  it('splits at 8,000 characters', () => {
    // Markdown-aware: room is kept in each piece to close and reopen a code block cut in two.
    expect(hook.split('a'.repeat(9000)).map((piece) => piece.length)).toEqual([7960, 1040]);
  });

  it('flags a refused app password without naming it; the check says so too', async () => {
    const refused = hookWith('teams-wrong-password-0');
    try {
      const failure = await deliveryErrorFrom(refused.deliver(message('1003'), 'x', 0, META));
      expect(failure.retryable).toBe(false);
      expect(failure.options.credentialsRefused).toBe(true);
      expect(failure.message).toContain('invalid_client');
      expect(failure.message).not.toContain('teams-wrong-password-0');
      expect(await refused.checkCredentials?.()).toMatchObject({ connected: false });
      expect(await hook.checkCredentials?.()).toEqual({ connected: true });
    } finally {
      await refused.close();
    }
  });

  it('retries a throttled or failing Connector, with its Retry-After', async () => {
    const original = framework.handler;
    framework.server.handle((req, res) =>
      req.url.startsWith('/v3/')
        ? sendJson(res, 429, { error: { code: 'Throttled' } }, { 'retry-after': '2' })
        : original(req, res, undefined as never),
    );
    try {
      const failure = await deliveryErrorFrom(hook.deliver(message('1004'), 'x', 0, META));
      expect(failure.retryable).toBe(true);
      expect(failure.retryAfterMs).toBe(2000);
    } finally {
      framework.server.handle(original);
    }
  });
});
