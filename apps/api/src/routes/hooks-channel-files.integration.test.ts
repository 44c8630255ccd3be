import {
  answerText,
  describeBytes,
  discordCommand,
  discordKeys,
  discordSignedHeaders,
  type FakeBotFramework,
  type FakeDiscord,
  type FakeMattermost,
  imagesSeen,
  type LocalServer,
  lastUserWords,
  mattermostOutgoing,
  minimalPdf,
  startFakeBotFramework,
  startFakeDiscord,
  startFakeMattermost,
  startOpenAIUpstream,
  TEAMS_APP_ID,
  TINY_PNG,
  teamsMessageActivity,
} from '@switchboard/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startGateway, type TestGateway } from '../test-support/start-gateway.js';
import { startTestWorker, type TestWorker } from '../test-support/start-worker.js';

const APPLICATION_ID = '1100000000000000001';
const MM_TOKEN = 'mm-outgoing-token-0123';
const MM_BOT_TOKEN = 'mm-bot-token-files-0123';
const TEAMS_PASSWORD = 'teams-app-password-files';
const keys = discordKeys();
const seen = describeBytes('image/png', TINY_PNG);

let upstream: LocalServer;
let discord: FakeDiscord;
let mattermost: FakeMattermost;
let framework: FakeBotFramework;
let gateway: TestGateway;
let worker: TestWorker;

beforeAll(async () => {
  upstream = await startOpenAIUpstream((req, res) =>
    answerText(req, res, `got: ${lastUserWords(req)} | images: ${imagesSeen(req).join(', ')}`),
  );
  discord = await startFakeDiscord({ applicationId: APPLICATION_ID });
  mattermost = await startFakeMattermost({ botToken: MM_BOT_TOKEN });
  framework = await startFakeBotFramework({ appId: TEAMS_APP_ID, appPassword: TEAMS_PASSWORD });
  const media = { images: true, documents: true };
  gateway = await startGateway({
    config: {
      defaultModel: 'mock/gpt-4o',
      providers: { mock: { type: 'openai', baseUrl: `${upstream.url}/v1`, models: ['gpt-4o'] } },
      hooks: {
        dc: {
          type: 'discord',
          publicKey: keys.publicKeyHex,
          applicationId: APPLICATION_ID,
          apiUrl: discord.apiUrl,
          stream: false,
          media,
        },
        mm: { type: 'mattermost', token: MM_TOKEN, serverUrl: mattermost.url, botToken: MM_BOT_TOKEN, media },
        teams: {
          type: 'teams',
          appId: TEAMS_APP_ID,
          appPassword: TEAMS_PASSWORD,
          openIdMetadataUrl: `${framework.url}${framework.metadataPath}`,
          tokenUrl: `${framework.url}${framework.tokenPath}`,
          media,
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
  await Promise.all([upstream?.close(), discord?.close(), mattermost?.close(), framework?.close()]);
});

let seq = 0;
const post = (hook: string, body: string, headers: Record<string, string>) =>
  fetch(`${gateway.url}/hooks/${hook}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

describe('files from Discord, Mattermost and Teams', () => {
  it('shows the model an image given to a Discord command’s attachment option, fetched from the CDN URL', async () => {
    const attachment = discord.addAttachment(TINY_PNG, 'chart.png', 'image/png');
    const token = `interaction-files-${++seq}`;
    discord.interaction(token);
    const body = JSON.stringify(
      discordCommand({
        id: `13294812345699${String(seq).padStart(5, '0')}`,
        token,
        data: {
          id: '1200000000000000004',
          name: 'ask',
          type: 1,
          options: [
            { name: 'prompt', type: 3, value: 'what is this?' },
            { name: 'file', type: 11, value: attachment.id },
          ],
          resolved: { attachments: { [attachment.id]: attachment } },
        },
      }),
    );
    const res = await post(
      'dc',
      body,
      discordSignedHeaders(keys.privateKey, Buffer.from(body), String(Math.floor(Date.now() / 1000))),
    );
    expect(res.status).toBe(200);
    await eventually(
      () => expect(discord.responses(token).map((p) => p.content)).toEqual([`got: what is this? | images: ${seen}`]),
      300,
    );
    expect(discord.attachmentDownloads).toBe(1);
  });

  it('reads a Mattermost post’s file through GET /api/v4/files/{id} with the bot token', async () => {
    const fileId = mattermost.addFile(minimalPdf(['Minutes: ship on Friday.']), 'application/pdf');
    const channel = `chanfiles${String(++seq).padStart(17, '0')}`;
    mattermost.userPosted({ id: `post${seq}`, channel_id: channel, message: '#ask when?' });
    const res = await post(
      'mm',
      JSON.stringify(mattermostOutgoing({ channel_id: channel, post_id: `post${seq}`, text: '#ask when?', file_ids: fileId })),
      {},
    );
    expect(res.status).toBe(200);
    await eventually(
      () =>
        expect(
          mattermost
            .botPosts()
            .filter((p) => p.channel_id === channel)
            .map((p) => p.message),
        ).toEqual([
          // No name in the webhook: the placeholder names the kind.
          'got: when?\n\n[document: document.pdf, 1 page]\nMinutes: ship on Friday. | images: ',
        ]),
      300,
    );
  });

  it('shows the model a Teams pasted image (Connector token) and reads a personal-chat file (pre-authenticated URL)', async () => {
    const serviceUrl = `${framework.url}/`;
    const conversation = `a:1personal${++seq}`;
    const activity = teamsMessageActivity(serviceUrl, {
      id: `17369424${String(seq).padStart(5, '0')}`,
      text: 'look',
      conversation: { id: conversation, conversationType: 'personal' },
      entities: [],
      attachments: [
        { contentType: 'image/png', contentUrl: framework.addInlineImage(TINY_PNG, 'image/png') },
        {
          contentType: 'application/vnd.microsoft.teams.file.download.info',
          contentUrl: 'https://contoso-my.sharepoint.com/personal/ada/Documents/notes.md',
          name: 'notes.md',
          content: { downloadUrl: framework.addFileDownload(Buffer.from('# Notes\nbuy milk')), uniqueId: 'x', fileType: 'md' },
        },
        { contentType: 'text/html', content: '<p>look</p>' },
      ],
    });
    const token = await framework.sign(serviceUrl);
    const res = await post('teams', JSON.stringify(activity), { authorization: `Bearer ${token}` });
    expect(res.status).toBe(200);
    await eventually(
      () =>
        expect(framework.replies.filter((r) => r.conversationId === conversation).map((r) => r.text)).toEqual([
          `got: look\n\n[document: notes.md]\n# Notes\nbuy milk | images: ${seen}`,
        ]),
      300,
    );
  });
});
