import {
  answerText,
  describeBytes,
  type FakeWhatsApp,
  fakeTranscript,
  imagesSeen,
  type LocalServer,
  lastUserWords,
  minimalPdf,
  startFakeWhatsApp,
  startOpenAIUpstream,
  TINY_PNG,
  transcriptionsHandler,
  WHATSAPP_PHONE_NUMBER_ID,
  wavFile,
  whatsappSignature,
  whatsappTextWebhook,
} from '@switchboard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startGateway, type TestGateway } from '../test-support/start-gateway.js';
import { startTestWorker, type TestWorker } from '../test-support/start-worker.js';

const APP_SECRET = 'whatsapp-app-secret-media';
const VERIFY_TOKEN = 'whatsapp-verify-token-media';
const ACCESS_TOKEN = 'EAAG-whatsapp-access-token-media';

const PNG = TINY_PNG;

let upstream: LocalServer;
let graph: FakeWhatsApp;
let gateway: TestGateway;
let worker: TestWorker;

beforeAll(async () => {
  // The model answers with the words and images of the user's turn; transcriptions name the bytes' digest.
  upstream = await startOpenAIUpstream((req, res, raw) => {
    if (req.url.endsWith('/audio/transcriptions')) return transcriptionsHandler(req, res, raw);
    answerText(req, res, `got: ${lastUserWords(req)} | images: ${imagesSeen(req).join(', ')}`);
  });
  graph = await startFakeWhatsApp({ accessToken: ACCESS_TOKEN, phoneNumberId: WHATSAPP_PHONE_NUMBER_ID });
  gateway = await startGateway({
    config: {
      defaultModel: 'mock/gpt-4o',
      providers: {
        mock: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['gpt-4o'], audioModels: ['whisper-1'] },
      },
      hooks: {
        wa: {
          type: 'whatsapp',
          appSecret: APP_SECRET,
          verifyToken: VERIFY_TOKEN,
          accessToken: ACCESS_TOKEN,
          apiUrl: graph.url,
          media: { images: true, audio: 'mock/whisper-1', documents: true },
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
  await Promise.all([upstream?.close(), graph?.close()]);
});

let seq = 0;

/** A customer of its own sends `message` (a media message); resolves to what the business sent back. */
async function sendMedia(message: Record<string, unknown>): Promise<string[]> {
  const from = `1650777${String(++seq).padStart(4, '0')}`;
  graph.customerWrote(from);
  const raw = JSON.stringify(whatsappTextWebhook({ from, id: `wamid.media${seq}`, text: undefined, ...message }));
  const res = await fetch(`${gateway.url}/hooks/wa`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': whatsappSignature(APP_SECRET, raw) },
    body: raw,
  });
  expect(res.status).toBe(200);
  return eventually(() => {
    const sent = graph.sent.filter((m) => m.to === from).map((m) => m.body);
    expect(sent.length).toBeGreaterThan(0);
    return sent;
  }, 300);
}

describe('WhatsApp media', () => {
  it('shows the model an image fetched the two-step way (media URL, then the bytes), with the token', async () => {
    const id = graph.addMedia(PNG, 'image/png');
    const downloads = graph.mediaDownloads;
    const sent = await sendMedia({ type: 'image', image: { id, mime_type: 'image/png', sha256: 'x', caption: 'what is this?' } });
    expect(sent).toEqual([`got: what is this? | images: ${describeBytes('image/png', PNG)}`]);
    expect(graph.mediaDownloads).toBe(downloads + 1);
  });

  it('hears a voice note: the transcript of the very bytes is the turn', async () => {
    const note = wavFile(2000);
    const id = graph.addMedia(note, 'audio/ogg');
    const sent = await sendMedia({ type: 'audio', audio: { id, mime_type: 'audio/ogg; codecs=opus', voice: true } });
    expect(sent).toEqual([`got: ${fakeTranscript(note, 'voice.wav')} | images: `]);
  });

  it('reads a PDF document', async () => {
    const id = graph.addMedia(minimalPdf(['Invoice 42: total 17 EUR.']), 'application/pdf');
    const sent = await sendMedia({
      type: 'document',
      document: { id, mime_type: 'application/pdf', filename: 'invoice.pdf', caption: 'pay?' },
    });
    expect(sent).toEqual(['got: pay?\n\n[document: invoice.pdf, 1 page]\nInvoice 42: total 17 EUR. | images: ']);
  });

  it('answers politely when Meta no longer has the media (an unknown media id), and fetches nothing', async () => {
    const downloads = graph.mediaDownloads;
    const sent = await sendMedia({ type: 'image', image: { id: '1234567', mime_type: 'image/jpeg' } });
    expect(sent).toEqual(['Sorry, I could not fetch that file; it may have expired. Could you send it again?']);
    expect(graph.mediaDownloads).toBe(downloads);
  });
});
