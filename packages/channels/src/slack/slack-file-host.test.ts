import { describe, expect, it } from 'vitest';
import { slackFileHost } from './slack-channel.js';

const API = 'https://slack.com/api';

describe('slackFileHost: where the bot token may go with a file download', () => {
  it("takes Slack's HTTPS file hosts", () => {
    expect(slackFileHost('https://files.slack.com/files-pri/T1-F1/download/a.png', API)).toBe(true);
    expect(slackFileHost('https://files-edu.slack.com/files-pri/T1-F1/a.png', API)).toBe(true);
    expect(slackFileHost('https://slack-files.com/T1-F1-abc', API)).toBe(true);
  });

  it('takes the origin apiUrl names (a Slack Enterprise proxy, or a test double)', () => {
    expect(slackFileHost('http://127.0.0.1:4100/files-pri/T1-F1/download/a.png', 'http://127.0.0.1:4100/api')).toBe(true);
  });

  it('refuses any other host, plain HTTP, another port, look-alikes and credentials in the URL', () => {
    expect(slackFileHost('https://evil.example/files-pri/a.png', API)).toBe(false);
    expect(slackFileHost('https://files.slack.com.evil.example/a.png', API)).toBe(false);
    expect(slackFileHost('https://notslack.com/a.png', API)).toBe(false);
    expect(slackFileHost('http://files.slack.com/a.png', API)).toBe(false);
    expect(slackFileHost('https://files.slack.com:8443/a.png', API)).toBe(false);
    expect(slackFileHost('https://user:pw@files.slack.com/a.png', API)).toBe(false);
    expect(slackFileHost('not a url', API)).toBe(false);
  });
});
