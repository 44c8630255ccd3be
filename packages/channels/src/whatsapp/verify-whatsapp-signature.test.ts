import { jsonRequest, whatsappRequest, whatsappTextWebhook } from '@switchboard/testing';
import { describe, expect, it } from 'vitest';
import { appErrorFrom } from '../test-support/errors.js';
import { verifyWhatsAppSignature } from './verify-whatsapp-signature.js';
import { answerWhatsAppHandshake } from './whatsapp-handshake.js';

const APP_SECRET = 'whatsapp-app-secret-0123';

describe('verifyWhatsAppSignature', () => {
  it('accepts the HMAC-SHA256 of the raw body under the app secret', () => {
    expect(() => verifyWhatsAppSignature(whatsappRequest(APP_SECRET, whatsappTextWebhook()), APP_SECRET)).not.toThrow();
  });

  it('answers 401 invalid_signature when the header is missing, made with another secret, or the body changed', () => {
    const tampered = whatsappRequest(APP_SECRET, whatsappTextWebhook());
    tampered.rawBody = Buffer.from(tampered.rawBody.toString().replace('color', 'colour'));
    const signed = whatsappRequest(APP_SECRET, whatsappTextWebhook());
    for (const request of [
      jsonRequest(whatsappTextWebhook()),
      whatsappRequest(`${APP_SECRET}x`, whatsappTextWebhook()),
      tampered,
      {
        ...signed,
        headers: { 'x-hub-signature-256': String(signed.headers['x-hub-signature-256']).replace('sha256=', 'sha1=') },
      },
    ]) {
      const error = appErrorFrom(() => verifyWhatsAppSignature(request, APP_SECRET));
      expect(error.status).toBe(401);
      expect(error.code).toBe('invalid_signature');
    }
  });
});

describe('answerWhatsAppHandshake', () => {
  const query = (mode: string, token: string, challenge = '1158201444') =>
    new URLSearchParams({ 'hub.mode': mode, 'hub.verify_token': token, 'hub.challenge': challenge });

  it('echoes hub.challenge when the mode is subscribe and the verify token is ours', () => {
    expect(answerWhatsAppHandshake(query('subscribe', 'verify-me-0123'), 'verify-me-0123')).toEqual({
      status: 200,
      body: '1158201444',
    });
  });

  it('answers 403 for a wrong token or mode, and 400 for a challenge that is not a short printable token', () => {
    expect(appErrorFrom(() => answerWhatsAppHandshake(query('subscribe', 'wrong'), 'verify-me-0123')).status).toBe(403);
    expect(appErrorFrom(() => answerWhatsAppHandshake(query('unsubscribe', 'verify-me-0123'), 'verify-me-0123')).status).toBe(
      403,
    );
    expect(appErrorFrom(() => answerWhatsAppHandshake(new URLSearchParams(), 'verify-me-0123')).status).toBe(403);
    expect(
      appErrorFrom(() => answerWhatsAppHandshake(query('subscribe', 'verify-me-0123', '<b>x</b> y'), 'verify-me-0123')).status,
    ).toBe(400);
  });
});
