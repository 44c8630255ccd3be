import {
  answerText,
  type FakeTelegram,
  type LocalServer,
  lastUserWords,
  minimalPdf,
  startFakeTelegram,
  startOpenAIUpstream,
  TELEGRAM_SECRET_HEADER,
  telegramUpdate,
} from '@switchboard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askHook } from '../test-support/ask-hook.js';
import { eventually, startGateway, type TestGateway } from '../test-support/start-gateway.js';
import { startTestWorker, type TestWorker } from '../test-support/start-worker.js';

const TOKEN = 'hook-token-documents-0123456789';
const TG_TOKEN = '110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
const TG_SECRET = 'tg-webhook-secret_documents';

const Q3 = minimalPdf(['Quarterly revenue rose 12 percent.', 'Costs fell in every region.']);

let upstream: LocalServer;
let telegram: FakeTelegram;
let gateway: TestGateway;
let worker: TestWorker;

beforeAll(async () => {
  // The model answers with the text of the user's turn and the earlier turns memory gave it.
  upstream = await startOpenAIUpstream((req, res) => {
    const body = req.json as { messages: { role: string; content: unknown }[] };
    const earlier = body.messages.slice(0, -1).map((m) => (typeof m.content === 'string' ? m.content : '[parts]'));
    answerText(req, res, `read: ${lastUserWords(req)} | earlier: ${earlier.join(' / ')}`);
  });
  telegram = await startFakeTelegram({ botToken: TG_TOKEN });
  const documents = { documents: true };
  gateway = await startGateway({
    config: {
      defaultModel: 'mock/gpt-4o',
      providers: { mock: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['gpt-4o'] } },
      hooks: {
        docs: { type: 'generic', token: TOKEN, stream: false, media: documents },
        short: { type: 'generic', token: TOKEN, stream: false, media: { documents: true, maxDocumentChars: 40 } },
        pictures: { type: 'generic', token: TOKEN, stream: false, media: { images: true } },
        tg: {
          type: 'telegram',
          botToken: TG_TOKEN,
          secretToken: TG_SECRET,
          apiUrl: telegram.url,
          stream: false,
          media: documents,
        },
      },
      worker: { attempts: 3, backoffMs: 50, lockMs: 2000 },
    },
  });
  worker = startTestWorker(gateway.settings);
});

afterAll(async () => {
  await worker?.close();
  await gateway?.close();
  await Promise.all([upstream?.close(), telegram?.close()]);
});

let seq = 0;
function ask(hook: string, body: Record<string, unknown>) {
  return askHook(gateway.url, hook, TOKEN, { from: `user-${++seq}`, ...body });
}
const attach = (bytes: Buffer, name: string, type?: string) => ({
  data: bytes.toString('base64'),
  name,
  ...(type ? { type } : {}),
});

describe('documents sent to a hook', () => {
  it('hands a Telegram PDF’s text to the model, and memory keeps its name, pages and first lines', async () => {
    const fileId = telegram.addFile(Q3);
    const chatId = 9_000 + ++seq;
    const send = (message: Record<string, unknown>) =>
      fetch(`${gateway.url}/hooks/tg`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [TELEGRAM_SECRET_HEADER]: TG_SECRET },
        body: JSON.stringify(
          telegramUpdate({ message_id: ++seq, chat: { id: chatId, type: 'private' }, ...message }, { update_id: 600_000 + seq }),
        ),
      });
    const document = {
      file_id: fileId,
      file_unique_id: 'd',
      file_name: 'q3.pdf',
      mime_type: 'application/pdf',
      file_size: Q3.length,
    };
    expect((await send({ text: undefined, caption: 'summarise', document })).status).toBe(200);
    const first =
      'read: summarise\n\n[document: q3.pdf, 2 pages]\nQuarterly revenue rose 12 percent.\n\nCosts fell in every region. | earlier: ';
    await eventually(() => expect(telegram.chat(chatId).map((m) => m.text)).toEqual([first]), 300);
    expect((await send({ text: 'and costs?' })).status).toBe(200);
    await eventually(
      () =>
        expect(telegram.chat(chatId).at(-1)?.text).toBe(
          `read: and costs? | earlier: [document: q3.pdf, 2 pages] Quarterly revenue rose 12 percent. Costs fell in every region. summarise / ${first}`,
        ),
      300,
    );
  });

  it('reads Markdown and CSV attachments as text', async () => {
    const md = await ask('docs', { attachments: [attach(Buffer.from('# Plan\n\n- ship'), 'plan.md', 'text/markdown')] });
    expect(md).toMatchObject({ status: 'completed', reply: 'read: [document: plan.md]\n# Plan\n\n- ship | earlier: ' });
    // No declared type: the bytes have no signature, so they are read as text.
    const csv = await ask('docs', { text: 'total?', attachments: [attach(Buffer.from('item,cost\ntea,3\n'), 'costs.csv')] });
    expect(csv.reply).toBe('read: total?\n\n[document: costs.csv]\nitem,cost\ntea,3 | earlier: ');
  });

  it('cuts a long document at maxDocumentChars and tells the model so', async () => {
    const long = Buffer.from('word '.repeat(100));
    const view = await ask('short', { attachments: [attach(long, 'long.txt', 'text/plain')] });
    expect(view.reply).toBe(`read: [document: long.txt]\n${'word '.repeat(8)}\n[… cut at 40 characters] | earlier: `);
  });

  it('answers politely, without the model, for a truncated or garbage PDF, and completes', async () => {
    const calls = upstream.requests.length;
    for (const bytes of [Q3.subarray(0, 200), Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(3000, 0x5a)])]) {
      const view = await ask('docs', { attachments: [attach(bytes, 'broken.pdf', 'application/pdf')] });
      expect(view).toMatchObject({ status: 'completed', attempts: 1 });
      expect(view.reply).toBe('Sorry, I could not read that document. Could you paste the part you want me to look at?');
    }
    expect(upstream.requests.length).toBe(calls);
  });

  it('answers politely when documents are off for the hook, and a binary file as a kind it cannot read', async () => {
    const off = await ask('pictures', { attachments: [attach(Q3, 'q3.pdf', 'application/pdf')] });
    expect(off.reply).toBe('Sorry, I cannot read documents here; please paste the part you want me to look at.');
    const binary = await ask('docs', { attachments: [attach(Buffer.from([0xff, 0x00, 0xfe, 0x01]), 'blob.txt', 'text/plain')] });
    expect(binary.reply).toBe('Sorry, I cannot read that kind of file; I can read PDF, text, Markdown and CSV documents.');
  });
});
