import { TEAMS_BOT_ID, teamsConversationUpdate, teamsMessageActivity } from '@switchboard/testing';
import { describe, expect, it } from 'vitest';
import { appErrorFrom } from '../test-support/errors.js';
import { parseTeamsActivity } from './parse-teams-activity.js';

const SERVICE_URL = 'https://smba.trafficmanager.net/emea/';
/** A verified token for SERVICE_URL whose key is endorsed for Teams, as the Connector's keys are. */
const TOKEN = { serviceUrl: SERVICE_URL, endorsements: ['msteams'] };
const ignored = { kind: 'answer', answer: { status: 200, body: { ok: true } } };

describe('parseTeamsActivity', () => {
  it('queues a message without the mention of the bot, as a reply to the activity in its conversation', () => {
    const activity = teamsMessageActivity(SERVICE_URL);
    const inbound = parseTeamsActivity(activity, TOKEN);
    expect(inbound.kind).toBe('message');
    if (inbound.kind !== 'message') return;
    expect(inbound.message).toEqual({
      action: 'chat',
      text: 'What is a monad?',
      from: activity.from.id,
      fromName: activity.from.name,
      place: 'group',
      addressed: true,
      conversation: activity.conversation.id,
      dedupeKey: '1736942400000',
      replyTo: { service_url: SERVICE_URL, conversation_id: activity.conversation.id, activity_id: '1736942400000' },
    });
  });

  it("keeps other people's mentions and strips every mention of the bot", () => {
    const activity = teamsMessageActivity(SERVICE_URL, {
      text: 'Ask <at>Grace</at> or <at>Switchboard</at>, <at>Switchboard</at>  please',
      entities: [
        { type: 'mention', text: '<at>Grace</at>', mentioned: { id: '29:grace' } },
        { type: 'mention', text: '<at>Switchboard</at>', mentioned: { id: TEAMS_BOT_ID } },
      ],
    });
    const inbound = parseTeamsActivity(activity, TOKEN);
    expect(inbound.kind === 'message' && inbound.message.text).toBe('Ask <at>Grace</at> or , please');
  });

  it('acknowledges conversationUpdate, other activity types, empty mentions and its own messages', () => {
    expect(parseTeamsActivity(teamsConversationUpdate(SERVICE_URL), TOKEN)).toEqual(ignored);
    expect(parseTeamsActivity({ type: 'typing', serviceUrl: SERVICE_URL, channelId: 'msteams' }, TOKEN)).toEqual(ignored);
    expect(parseTeamsActivity(teamsMessageActivity(SERVICE_URL, { text: '<at>Switchboard</at> ' }), TOKEN)).toEqual(ignored);
    expect(parseTeamsActivity(teamsMessageActivity(SERVICE_URL, { from: { id: TEAMS_BOT_ID } }), TOKEN)).toEqual(ignored);
  });

  it('keeps a personal-chat file by its download URL and a pasted image by its contentUrl, the token only for Microsoft hosts', () => {
    const file = {
      contentType: 'application/vnd.microsoft.teams.file.download.info',
      contentUrl: 'https://contoso-my.sharepoint.com/personal/ada/Documents/q3.pdf',
      name: 'q3.pdf',
      content: { downloadUrl: 'https://contoso-my.sharepoint.com/download.aspx?tempauth=x', uniqueId: 'u', fileType: 'pdf' },
    };
    const image = {
      contentType: 'image/png',
      contentUrl: 'https://smba.trafficmanager.net/emea/v3/attachments/0-a/views/original',
    };
    const elsewhere = { contentType: 'image/jpeg', contentUrl: 'https://images.example.com/cat.jpg' };
    const html = { contentType: 'text/html', content: '<p>hi</p>' };
    const inbound = parseTeamsActivity(teamsMessageActivity(SERVICE_URL, { attachments: [file, image, elsewhere, html] }), TOKEN);
    expect(inbound.kind === 'message' && inbound.message.media).toEqual([
      { kind: 'file', ref: 'https://contoso-my.sharepoint.com/download.aspx?tempauth=x', name: 'q3.pdf' },
      { kind: 'image', ref: `bearer:${image.contentUrl}`, type: 'image/png' },
      { kind: 'image', ref: elsewhere.contentUrl, type: 'image/jpeg' },
    ]);
  });

  it('answers 401 when the activity names another serviceUrl than its token', () => {
    const error = appErrorFrom(() => parseTeamsActivity(teamsMessageActivity('https://evil.example.com/'), TOKEN));
    expect(error.status).toBe(401);
    expect(error.code).toBe('invalid_token');
  });

  it("answers 401 when the token's key is not endorsed for the activity's channel", () => {
    for (const channelId of ['skype', undefined, 42]) {
      const error = appErrorFrom(() => parseTeamsActivity(teamsMessageActivity(SERVICE_URL, { channelId }), TOKEN));
      expect(error.status).toBe(401);
    }
    // A key that lists no endorsements signs for any channel; a blank channel asserts none (EndorsementsValidator).
    const unendorsed = { serviceUrl: SERVICE_URL, endorsements: [] };
    expect(parseTeamsActivity(teamsMessageActivity(SERVICE_URL, { channelId: 'skype' }), unendorsed).kind).toBe('message');
    expect(parseTeamsActivity(teamsMessageActivity(SERVICE_URL, { channelId: ' ' }), TOKEN).kind).toBe('message');
  });

  it('answers 400 naming the field for a body that is not an activity', () => {
    expect(appErrorFrom(() => parseTeamsActivity({ serviceUrl: SERVICE_URL }, TOKEN)).param).toBe('type');
    expect(appErrorFrom(() => parseTeamsActivity(teamsMessageActivity(SERVICE_URL, { conversation: {} }), TOKEN)).param).toBe(
      'conversation.id',
    );
    expect(appErrorFrom(() => parseTeamsActivity('activity', TOKEN)).status).toBe(400);
  });
});
