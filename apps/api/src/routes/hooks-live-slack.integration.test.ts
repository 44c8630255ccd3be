import { once } from 'node:events';
import { markdownToSlackMrkdwn } from '@switchboard/channels';
import { eventually, type FakeSlack, slackMessageEvent, slackSignedHeaders, startFakeSlack } from '@switchboard/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { heldStream, type LiveHarness, startLiveHarness } from '../test-support/start-live-harness.js';

const SIGNING_SECRET = 'slack-signing-secret-0123';
const BOT_TOKEN = 'xoxb-live-bot-token-0123';
/** About one message a second per channel, scaled down. */
const LIMIT = { count: 1, perMs: 100 };
const ANSWER = 'Use **bold** ideas:\n\n- first `step`\n- then <the next> & more\n\n```sh\nnpm test\n```';

let slack: FakeSlack | undefined;
let harness: LiveHarness | undefined;

afterEach(async () => {
  await harness?.close();
  await slack?.close();
  harness = slack = undefined;
});

async function start(fake: { streaming?: boolean } = {}) {
  slack = await startFakeSlack({ botToken: BOT_TOKEN, limit: LIMIT, ...fake });
  harness = await startLiveHarness({
    hooks: {
      team: {
        type: 'slack',
        signingSecret: SIGNING_SECRET,
        botToken: BOT_TOKEN,
        apiUrl: slack.apiUrl,
        streamIntervalMs: 150,
        sendLimits: { channel: LIMIT },
      },
    },
  });
  return { slack, harness };
}

let seq = 0;
/** A signed message event in channel C0LIVE, as Slack sends it; its ts starts the reply's thread. */
async function send(text: string) {
  seq++;
  const ts = `1736950000.${String(seq).padStart(6, '0')}`;
  const raw = JSON.stringify(slackMessageEvent({ text, ts, channel: 'C0LIVE' }, { event_id: `EvLive${seq}` }));
  const res = await harness!.post('team', raw, slackSignedHeaders(SIGNING_SECRET, raw, Date.now()));
  expect(res.status).toBe(200);
  return ts;
}

const methods = (fake: FakeSlack) => fake.calls.filter((c) => c.error === null).map((c) => c.method);

describe('Slack live replies', () => {
  it('shows the assistant status, then streams natively into the thread, ending with the whole Markdown reply', async () => {
    const { slack, harness } = await start();
    harness.script('stream it', { text: ANSWER, firstTokenMs: 200, chunkDelayMs: 40, chunkChars: 6 });
    harness.startWorker();
    const thread = await send('stream it');

    await eventually(() => expect(slack.thread('C0LIVE', thread)).toMatchObject([{ text: ANSWER, streaming: false }]), 400);
    const calls = methods(slack);
    expect(calls[0]).toBe('assistant.threads.setStatus');
    expect(calls.filter((m) => m === 'chat.startStream')).toHaveLength(1);
    expect(calls.filter((m) => m === 'chat.appendStream').length).toBeGreaterThanOrEqual(2);
    expect(calls.at(-1)).toBe('chat.stopStream');
    expect(calls).not.toContain('chat.postMessage');
    // A native stream in a channel names who it is for.
    expect(slack.calls.find((c) => c.method === 'chat.startStream')?.args).toMatchObject({
      recipient_user_id: 'U0456',
      recipient_team_id: 'T0001',
    });
    expect(slack.refused).toBe(0);
  });

  it('posts and updates a message in mrkdwn where native streaming is refused', async () => {
    const { slack, harness } = await start({ streaming: false });
    harness.script('no streams', { text: ANSWER, chunkDelayMs: 40, chunkChars: 6 });
    harness.startWorker();
    const thread = await send('no streams');

    await eventually(
      () => expect(slack.thread('C0LIVE', thread).map((m) => m.text)).toEqual([markdownToSlackMrkdwn(ANSWER)]),
      400,
    );
    const calls = methods(slack);
    expect(calls.filter((m) => m === 'chat.postMessage')).toHaveLength(1);
    expect(calls).toContain('chat.update');
    expect(slack.thread('C0LIVE', thread)[0]!.text).toContain('&lt;the next&gt; &amp; more');
  });

  it('after a worker is SIGKILLed mid-stream, the next run closes that stream and updates the same message to the whole reply', async () => {
    const { slack, harness } = await start();
    const { hold, release } = heldStream();
    harness.script('survive this', { text: ANSWER, chunkDelayMs: 30, chunkChars: 6, holdAfter: 8, hold });
    const child = harness.spawnWorker();
    const thread = await send('survive this');
    await eventually(() => expect(methods(slack)).toContain('chat.appendStream'), 400);
    child.kill('SIGKILL');
    await once(child, 'exit');
    release();

    harness.startWorker();
    await eventually(
      () => expect(slack.thread('C0LIVE', thread).map((m) => m.text)).toEqual([markdownToSlackMrkdwn(ANSWER)]),
      400,
    );
    expect(methods(slack).filter((m) => m === 'chat.startStream' || m === 'chat.postMessage')).toEqual(['chat.startStream']);
    expect(await harness.history('team', `C0LIVE:${thread}`)).toHaveLength(2);
  });
});
