import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@switchboard/protocol';
import { describe, expect, it } from 'vitest';
import { loadSettings } from './settings.js';

const dir = mkdtempSync(join(tmpdir(), 'switchboard-mapped-'));
const slack = { type: 'slack', signingSecret: 'slack-signing-secret', botToken: 'xoxb-bot-token' };
const generic = { type: 'generic', token: 'generic-token-0123' };

function load(hooks: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const path = join(dir, `${Math.random()}.json`);
  writeFileSync(path, JSON.stringify({ hooks, ...extra }));
  return loadSettings({ SWITCHBOARD_CONFIG: path });
}

function mapped(
  deliver: Record<string, unknown>,
  verify: Record<string, unknown> = { scheme: 'github', secret: 'gh-secret-0123' },
) {
  return { type: 'mapped', verify, template: 'PR {{pull_request.title}}', deliver };
}

/** The ConfigError message `run` throws (the key path, then why). */
function configError(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('mapped hooks in the config', () => {
  it('accepts a delivery through a Slack hook, with a templated thread', () => {
    const settings = load({ team: slack, gh: mapped({ hook: 'team', channel: 'C123', thread: '{{thread}}' }) });
    expect(settings.config.hooks.gh).toMatchObject({ deliver: { hook: 'team', channel: 'C123', thread: '{{thread}}' } });
    expect(settings.secrets).toContain('gh-secret-0123');
  });

  it('refuses a deliver.hook that is not configured, naming the key', () => {
    expect(configError(() => load({ team: slack, gh: mapped({ hook: 'team-slak', channel: 'C1' }) }))).toMatch(
      /hooks\.gh\.deliver\.hook.*no hook named 'team-slak'/,
    );
  });

  it('refuses a deliver.hook whose channel cannot deliver to a target', () => {
    expect(configError(() => load({ api: generic, gh: mapped({ hook: 'api', channel: 'C1' }) }))).toMatch(
      /hooks\.gh\.deliver\.hook.*generic hook cannot deliver to a target/,
    );
  });

  it('refuses target keys the channel does not know, or a missing required one', () => {
    expect(configError(() => load({ team: slack, gh: mapped({ hook: 'team', chat: 1 }) }))).toMatch(
      /hooks\.gh\.deliver.*unknown target key 'chat'/,
    );
    expect(configError(() => load({ team: slack, gh: mapped({ hook: 'team', thread: '1.2' }) }))).toMatch(
      /hooks\.gh\.deliver.*missing target key 'channel'/,
    );
  });

  it('refuses a malformed template, a wait over 60 s and a Standard Webhooks secret that is not base64', () => {
    expect(configError(() => load({ gh: { ...mapped({}), template: 'PR {{#open}} never closed' } }))).toMatch(
      /hooks\.gh\.template.*Mustache/,
    );
    expect(configError(() => load({ gh: mapped({ wait: '90s' }) }))).toMatch(/hooks\.gh\.deliver/);
    expect(configError(() => load({ gh: mapped({}, { scheme: 'standard-webhooks', secret: 'whsec_not*base64!' }) }))).toMatch(
      /hooks\.gh\.verify\.secret/,
    );
  });

  it('reads wait as a duration, and keeps the events secrets out of logs', () => {
    const settings = load(
      {
        gh: {
          ...mapped({ wait: '25s' }),
          events: { url: 'https://events.example/in', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
        },
      },
      { events: { url: 'https://events.example/all', secret: 'whsec_LPrFnJMJ9lSERQzCPnkGJ98erJc81bXH' } },
    );
    expect(settings.config.hooks.gh).toMatchObject({ deliver: { wait: 25_000 } });
    expect(settings.secrets).toEqual(
      expect.arrayContaining(['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'whsec_LPrFnJMJ9lSERQzCPnkGJ98erJc81bXH']),
    );
  });
});
