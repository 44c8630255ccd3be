import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  eventually,
  type FakeTelegram,
  MCP_STDIO_SERVER,
  startFakeTelegram,
  TELEGRAM_SECRET_HEADER,
  telegramUpdate,
  toolCallingModel,
  toolMessages,
} from '@switchboard/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type LiveHarness, startLiveHarness } from './test-support/start-live-harness.js';

/**
 * Each tool call exactly once per message (issue 20, item 4): a real worker process, SIGKILLed
 * after its tool ran and its result was recorded, before the model heard the result. Another
 * worker takes the job over once the lock runs out, replays the recorded step and result, and
 * asks the model only for what comes next. The tool is the test MCP server's `create_ticket`
 * (a stdio child of each worker), which appends a line per call to a file: the count of lines is
 * the count of side effects, across processes.
 */
const BOT_TOKEN = '110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
const SECRET = 'tg-webhook-secret_0123';
const CHAT = 4242;
const PROMPT = 'open a ticket for the printer';

let telegram: FakeTelegram | undefined;
let harness: LiveHarness | undefined;
const holds: (() => void)[] = [];

afterEach(async () => {
  for (const release of holds.splice(0)) release();
  await harness?.close();
  await telegram?.close();
  harness = telegram = undefined;
});

describe('a worker SIGKILLed between a tool’s result and the next model call', () => {
  it('has the tool run once: the next worker replays the recorded call and its result', async () => {
    const sideEffects = join(mkdtempSync(join(tmpdir(), 'tools-once-')), 'tickets.jsonl');
    const tools = toolCallingModel((prompt) =>
      prompt === PROMPT ? [[{ name: 'desk__create_ticket', arguments: { title: 'printer' } }]] : undefined,
    );
    let doomed: ChildProcess | undefined;
    telegram = await startFakeTelegram({ botToken: BOT_TOKEN });
    harness = await startLiveHarness({
      // The first request that carries a tool result kills the worker that sent it, and is never answered.
      model: async (req, res, raw) => {
        if (doomed && toolMessages(req).length > 0) {
          const victim = doomed;
          doomed = undefined;
          victim.kill('SIGKILL');
          await new Promise<void>((resolve) => holds.push(resolve));
          return;
        }
        await tools(req, res, raw);
      },
      config: {
        mcpServers: { desk: { command: process.execPath, args: [MCP_STDIO_SERVER], env: { MCP_SIDE_EFFECTS: sideEffects } } },
      },
      hooks: {
        tg: { type: 'telegram', botToken: BOT_TOKEN, secretToken: SECRET, apiUrl: telegram.url, tools: ['desk'] },
      },
    });
    doomed = await harness.spawnWorker();
    const first = doomed;
    const body = telegramUpdate({ text: PROMPT, message_id: 1, chat: { id: CHAT, type: 'private' } }, { update_id: 990_001 });
    expect((await harness.post('tg', JSON.stringify(body), { [TELEGRAM_SECRET_HEADER]: SECRET })).status).toBe(200);
    await once(first, 'exit');
    expect(first.signalCode).toBe('SIGKILL');
    const tickets = () => (existsSync(sideEffects) ? readFileSync(sideEffects, 'utf8').trim().split('\n') : []);
    expect(tickets()).toHaveLength(1);

    await harness.spawnWorker();
    await eventually(
      () => expect(telegram!.chat(CHAT).map((m) => m.text)).toEqual(['tools said: ticket #1 created: printer']),
      600,
      25,
    );

    // One side effect; the step that asked for the tool was asked once; the retry sent the same call id.
    expect(tickets()).toHaveLength(1);
    const requests = harness.upstream.requests;
    const asking = requests.filter((r) => toolMessages(r).length === 0);
    const withResult = requests.filter((r) => toolMessages(r).length > 0);
    expect(asking).toHaveLength(1);
    expect(withResult).toHaveLength(2);
    const [killed, replayed] = withResult.map((r) => toolMessages(r));
    expect(replayed).toEqual(killed);
    expect(replayed).toEqual([{ tool_call_id: expect.stringMatching(/^call_/), content: 'ticket #1 created: printer' }]);
    expect(await harness.history('tg', String(CHAT))).toEqual([
      { role: 'user', content: PROMPT },
      {
        role: 'assistant',
        content:
          '[tools used]\ncreate_ticket({"title":"printer"}) result: ticket #1 created: printer\n[reply]\ntools said: ticket #1 created: printer',
      },
    ]);
  }, 60_000);
});
