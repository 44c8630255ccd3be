import {
  type BotFramework,
  botFramework,
  TEAMS_APP_ID,
  teamsConversationUpdate,
  teamsMessageActivity,
} from '@switchboard/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../test-support/start-gateway.js';
import { type HookHarness, startHookHarness } from '../test-support/start-hook-harness.js';

const APP_PASSWORD = 'teams-app-password-0123';

let framework: BotFramework;
let harness: HookHarness;
let serviceUrl: string;

beforeAll(async () => {
  framework = await botFramework({ appId: TEAMS_APP_ID, appPassword: APP_PASSWORD, baseUrl: () => harness.platform.url });
  const hook = (url: string) => ({
    type: 'teams',
    appId: TEAMS_APP_ID,
    appPassword: APP_PASSWORD,
    openIdMetadataUrl: `${url}${framework.metadataPath}`,
    tokenUrl: `${url}${framework.tokenPath}`,
  });
  harness = await startHookHarness({ platform: framework.handler, hooks: (url) => ({ teams: hook(url), quiet: hook(url) }) });
  serviceUrl = `${harness.platform.url}/`;
});

afterEach(() => harness.reset());
afterAll(async () => harness?.close());

let seq = 0;
/** A message of its own: a fresh activity id in a conversation of its own. */
function activity(text: string, conversation = `19:e2e${++seq}@thread.tacv2`) {
  return teamsMessageActivity(serviceUrl, {
    id: `17369424${String(++seq).padStart(5, '0')}`,
    text: `<at>Switchboard</at> ${text}`,
    conversation: { id: conversation, conversationType: 'channel' },
  });
}

async function send(body: unknown, options: { hook?: string; token?: string | null } = {}) {
  const token = options.token === undefined ? await framework.sign(serviceUrl) : options.token;
  return harness.post(options.hook ?? 'teams', JSON.stringify(body), token ? { authorization: `Bearer ${token}` } : {});
}

const repliesIn = (conversation: string) => framework.replies.filter((r) => r.conversationId === conversation);

describe('Teams hooks', () => {
  it('acknowledges a message at once and replies to it in its conversation, mention stripped', async () => {
    const release = harness.holdModel();
    const body = activity('What is a monad?');
    const res = await send(body);
    expect(res.status).toBe(200);
    expect(repliesIn(body.conversation.id)).toHaveLength(0);
    release();
    await eventually(
      () =>
        expect(repliesIn(body.conversation.id)).toEqual([
          {
            id: expect.any(String),
            conversationId: body.conversation.id,
            replyToId: body.id,
            text: 'reply to: What is a monad? (history: 0)',
          },
        ]),
      200,
    );
  });

  it('answers a repeated activity once and remembers the conversation', async () => {
    const first = activity('first');
    const second = activity('second', first.conversation.id);
    expect((await send(first)).status).toBe(200);
    expect((await send(first)).status).toBe(200);
    await send(second);
    await eventually(
      () =>
        expect(repliesIn(first.conversation.id).map((r) => r.text)).toEqual([
          'reply to: first (history: 0)',
          'reply to: second (history: 2)',
        ]),
      200,
    );
  });

  it('answers 401 for a missing or forged token, 400 for garbage, 200 for conversationUpdate; queues none', async () => {
    const body = activity('let me in');
    for (const token of [
      null,
      await framework.sign(serviceUrl, { foreign: true }),
      await framework.sign(serviceUrl, { audience: 'x' }),
    ]) {
      const res = await send(body, { hook: 'quiet', token });
      expect(res.status).toBe(401);
      expect((await res.json()).error).toMatchObject({ type: 'authentication_error', code: 'invalid_token' });
    }
    const garbage = await send({ serviceUrl, conversation: 5 }, { hook: 'quiet' });
    expect(garbage.status).toBe(400);
    expect((await send(teamsConversationUpdate(serviceUrl), { hook: 'quiet' })).status).toBe(200);
    expect((await harness.channel('quiet')).messages_in).toBe(0);
  });
});
