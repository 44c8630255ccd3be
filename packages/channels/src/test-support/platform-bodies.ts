/** Inbound bodies shaped as the platforms document them, to vary per test. */

export function slackMessageEvent(event: Record<string, unknown> = {}, envelope: Record<string, unknown> = {}) {
  return {
    token: 'XXYYZZ',
    team_id: 'T0001',
    api_app_id: 'A0001',
    type: 'event_callback',
    event_id: 'Ev0PV52K21',
    event_time: 1_736_942_400,
    authorizations: [{ team_id: 'T0001', user_id: 'U0BOT', is_bot: true }],
    event: {
      type: 'message',
      channel: 'C0123',
      channel_type: 'channel',
      user: 'U0456',
      text: 'What is a monad?',
      ts: '1736942400.000100',
      event_ts: '1736942400.000100',
      blocks: [],
      ...event,
    },
    ...envelope,
  };
}

export function telegramUpdate(message: Record<string, unknown> = {}, update: Record<string, unknown> = {}) {
  return {
    update_id: 987_654_321,
    message: {
      message_id: 42,
      from: { id: 111_222_333, is_bot: false, first_name: 'Ada', language_code: 'en' },
      chat: { id: -100_987_654_321, title: 'Team', type: 'supergroup' },
      date: 1_736_942_400,
      text: 'What is a monad?',
      ...message,
    },
    ...update,
  };
}

export function discordCommand(overrides: Record<string, unknown> = {}) {
  return {
    id: '1329481234567890123',
    application_id: '1100000000000000001',
    type: 2,
    token: 'aW50ZXJhY3Rpb246MTMyOTQ4MTIzNDU2Nzg5MDEyMzpzZWNyZXQ',
    version: 1,
    guild_id: '900000000000000001',
    channel_id: '900000000000000002',
    channel: { id: '900000000000000002', type: 0 },
    member: { user: { id: '800000000000000003', username: 'ada' }, roles: [] },
    data: { id: '1200000000000000004', name: 'ask', type: 1, options: [{ name: 'prompt', type: 3, value: 'What is a monad?' }] },
    locale: 'en-US',
    ...overrides,
  };
}
