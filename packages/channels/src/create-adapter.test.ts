import { hookSchema } from '@switchboard/config';
import { discordKeys } from '@switchboard/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChannelAdapter } from './channel.js';
import { createAdapter } from './create-adapter.js';

const created: ChannelAdapter[] = [];
afterEach(async () => {
  await Promise.all(created.splice(0).map((adapter) => adapter.close()));
});

describe('createAdapter', () => {
  it('builds the adapter for each hook type', () => {
    const configs = [
      { type: 'generic', token: 'hook-token-0123456789' },
      { type: 'slack', signingSecret: 'slack-signing-secret', botToken: 'xoxb-0123456789' },
      { type: 'telegram', botToken: '110201543:AAHdqTcv', secretToken: 'secret' },
      { type: 'discord', publicKey: discordKeys().publicKeyHex, applicationId: '1100000000000000001' },
    ];
    for (const config of configs) {
      const adapter = createAdapter('hook', hookSchema.parse(config));
      created.push(adapter);
      expect(adapter.type).toBe(config.type);
    }
  });

  it('closes an adapter more than once without error', async () => {
    const adapter = createAdapter('hook', hookSchema.parse({ type: 'generic', token: 'hook-token-0123456789' }));
    await adapter.close();
    await expect(adapter.close()).resolves.toBeUndefined();
  });
});
