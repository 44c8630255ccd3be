import { describe, expect, it } from 'vitest';
import { readCommand } from './access-gate.js';

describe('readCommand', () => {
  it('reads /reset, /help and /start as the whole message, in any case, after mentions of the bot', () => {
    expect(readCommand('/reset', false)).toBe('reset');
    expect(readCommand('  /HELP ', false)).toBe('help');
    expect(readCommand('/start', false)).toBe('start');
    expect(readCommand('<@U0BOT> /reset', true)).toBe('reset');
    expect(readCommand('@team_bot /help', true)).toBe('help');
  });

  it('takes a command named for a bot only when the channel found the message addressed to this one', () => {
    expect(readCommand('/reset@team_bot', true)).toBe('reset');
    expect(readCommand('/reset@other_bot', false)).toBeNull();
  });

  it('leaves other text to the model: unknown commands, commands with more words, commands inside a sentence', () => {
    expect(readCommand('/weather Paris', false)).toBeNull();
    expect(readCommand('/reset please', false)).toBeNull();
    expect(readCommand('how do I /reset?', false)).toBeNull();
    expect(readCommand('reset', false)).toBeNull();
    expect(readCommand('', false)).toBeNull();
  });
});
