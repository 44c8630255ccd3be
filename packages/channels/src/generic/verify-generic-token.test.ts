import { jsonRequest } from '@switchboard/testing';
import { describe, expect, it } from 'vitest';
import type { InboundRequest } from '../definition.js';
import { appErrorFrom } from '../test-support/errors.js';
import { verifyGenericToken } from './verify-generic-token.js';

const TOKEN = 'hook-token-0123456789';

const refusal = (request: InboundRequest) => appErrorFrom(() => verifyGenericToken(request, TOKEN));

describe('verifyGenericToken', () => {
  it('accepts the token as a Bearer token, whatever the scheme case', () => {
    expect(() => verifyGenericToken(jsonRequest({}, { authorization: `Bearer ${TOKEN}` }), TOKEN)).not.toThrow();
    expect(() => verifyGenericToken(jsonRequest({}, { authorization: `bearer ${TOKEN}` }), TOKEN)).not.toThrow();
  });

  it('accepts the token in X-Hook-Token', () => {
    expect(() => verifyGenericToken(jsonRequest({}, { 'x-hook-token': TOKEN }), TOKEN)).not.toThrow();
  });

  it('accepts X-Hook-Token even when Authorization holds something else', () => {
    const request = jsonRequest({}, { authorization: 'Basic dXNlcjpwYXNz', 'x-hook-token': TOKEN });
    expect(() => verifyGenericToken(request, TOKEN)).not.toThrow();
  });

  it('answers 401 invalid_token when no token is sent', () => {
    const error = refusal(jsonRequest({}));
    expect(error.status).toBe(401);
    expect(error.code).toBe('invalid_token');
  });

  it('answers 401 invalid_token for a wrong token, a prefix of it, or another scheme', () => {
    for (const headers of [
      { authorization: 'Bearer wrong-token-0123456789' },
      { authorization: `Bearer ${TOKEN.slice(0, -1)}` },
      { authorization: `Basic ${TOKEN}` },
      { 'x-hook-token': `${TOKEN}x` },
    ]) {
      const error = refusal(jsonRequest({}, headers));
      expect(error.status).toBe(401);
      expect(error.code).toBe('invalid_token');
    }
  });
});
