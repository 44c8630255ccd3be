import { once } from 'node:events';
import { markdownToSlackMrkdwn } from '@switchboard/channels';
import {
  eventually,
  type FakeSlack,
  type SlackFault,
  slackMessageEvent,
  slackSignedHeaders,
  startFakeSlack,
} from '@switchboard/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { heldStream, type LiveHarness, startLiveHarness } from '../test-support/start-live-harness.js';

const SIGNING_SECRET = 'slack-signing-secret-0123';
const BOT_TOKEN = 'xoxb-live-bot-token-0123';
/** About one message a second per channel, scaled down. */
const LIMIT = { count: 1, perMs: 100 };
/** A fake that refuses only the call a test makes fail, whatever the machine's load does to timing. */
const ROOMY = { count: 100, perMs: 100 };
const ANSWER = 'Use **bold** ideas:\n\n- first `step`\n- then <the next> & more\n\n```sh\nnpm test\n```';

let slack: FakeSlack | undefined;
let harness: LiveHarness | undefined;

afterEach(async () => {
  await harness?.close();
  await slack?.close();
  harness = slack = undefined;
});

/**
 * The fake Slack and a live harness with one Slack hook, `name`. A workspace's refusal of native
 * streaming is remembered per hook name for the life of the process (in-process workers share it).
 */
async function start(fake: { streaming?: boolean; limit?: typeof LIMIT } = {}, name = 'team') {
  slack = await startFakeSlack({ botToken: BOT_TOKEN, limit: LIMIT, ...fake });
  harness = await startLiveHarness({
    hooks: {
      [name]: {
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
async function send(text: string, hook = 'team') {
  seq++;
  const ts = `1736950000.${String(seq).padStart(6, '0')}`;
  const raw = JSON.stringify(slackMessageEvent({ text, ts, channel: 'C0LIVE' }, { event_id: `EvLive${seq}` }));
  const res = await harness!.post(hook, raw, slackSignedHeaders(SIGNING_SECRET, raw, Date.now()));
  expect(res.status).toBe(200);
  return ts;
}

const methods = (fake: FakeSlack) => fake.calls.filter((c) => c.error === null).map((c) => c.method);

/** The Markdown the stream was given, call after call, by the calls Slack did (answered or not). */
const streamedMarkdown = (fake: FakeSlack) =>
  fake.calls
    .filter((c) => /^chat\.(start|append)Stream$/.test(c.method) && (c.error === null || c.error === 'unanswered'))
    .map((c) => String(c.args.markdown_text ?? ''))
    .join('');

/** ANSWER streamed natively by a hook of its own, the stream's first `chat.appendStream` failing as `fault` says. */
async function streamWithFirstAppend(fault: SlackFault) {
  const { slack, harness } = await start({ limit: ROOMY }, fault);
  slack.failNext('chat.appendStream', fault);
  harness.script(fault, { text: ANSWER, firstTokenMs: 200, chunkDelayMs: 40, chunkChars: 6 });
  harness.startWorker();
  return { slack, thread: await send(fault, fault) };
}

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

  it('sends the text of an appendStream refused with a 429 once more, and the thread holds the reply once', async () => {
    const { slack, thread } = await streamWithFirstAppend('ratelimited');

    await eventually(
      () => expect(slack.thread('C0LIVE', thread)).toEqual([expect.objectContaining({ text: ANSWER, streaming: false })]),
      400,
    );
    expect(slack.calls.filter((c) => c.error === 'ratelimited')).toHaveLength(1);
    // Slack did none of the refused call: each piece of the reply went into the stream once.
    expect(streamedMarkdown(slack)).toBe(ANSWER);
  });

  it('never appends again after an appendStream done but never answered: the message is stopped and updated to the whole reply', async () => {
    const { slack, thread } = await streamWithFirstAppend('unanswered');

    await eventually(
      () => expect(slack.thread('C0LIVE', thread).map((m) => m.text)).toEqual([markdownToSlackMrkdwn(ANSWER)]),
      400,
    );
    // The unanswered append was the stream's last: it was stopped, then its message updated in place.
    expect(slack.calls.filter((c) => c.method === 'chat.appendStream')).toHaveLength(1);
    expect(methods(slack)).toContain('chat.stopStream');
    expect(methods(slack)).not.toContain('chat.postMessage');
    expect(ANSWER.startsWith(streamedMarkdown(slack))).toBe(true);
  });

  it('after a worker is SIGKILLed mid-stream, the next run closes that stream and updates the same message to the whole reply', async () => {
    const { slack, harness } = await start();
    const { hold, release } = heldStream();
    harness.script('survive this', { text: ANSWER, chunkDelayMs: 30, chunkChars: 6, holdAfter: 8, hold });
    const child = await harness.spawnWorker();
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
