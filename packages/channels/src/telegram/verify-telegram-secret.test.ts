import { jsonRequest } from '@switchboard/testing';
import { describe, expect, it } from 'vitest';
import { appErrorFrom } from '../test-support/errors.js';
import { verifyTelegramSecret } from './verify-telegram-secret.js';

const SECRET = 'tg-webhook-secret_0123';

describe('verifyTelegramSecret', () => {
  it('accepts the secret token given to setWebhook', () => {
    const request = jsonRequest({}, { 'x-telegram-bot-api-secret-token': SECRET });
    expect(() => verifyTelegramSecret(request, SECRET)).not.toThrow();
  });

  it('answers 401 invalid_token when the header is missing or wrong', () => {
    for (const headers of [
      {},
      { 'x-telegram-bot-api-secret-token': 'wrong' },
      { 'x-telegram-bot-api-secret-token': `${SECRET}x` },
    ]) {
      const error = appErrorFrom(() => verifyTelegramSecret(jsonRequest({}, headers), SECRET));
      expect(error.status).toBe(401);
      expect(error.code).toBe('invalid_token');
    }
  });
});
