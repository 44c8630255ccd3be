import { jsonRequest } from '@switchboard/testing';
import { describe, expect, it } from 'vitest';
import type { InboundRequest } from '../definition.js';
import { appErrorFrom } from '../test-support/errors.js';
import { parseGenericRequest } from './parse-generic-request.js';

const badRequest = (request: InboundRequest) => appErrorFrom(() => parseGenericRequest(request));

describe('parseGenericRequest', () => {
  it('queues a chat message for the sender, acknowledged with 202 and the job id', () => {
    const inbound = parseGenericRequest(jsonRequest({ text: 'hi there', from: 'user-7' }));
    expect(inbound.kind).toBe('message');
    if (inbound.kind !== 'message') return;
    expect(inbound.message).toEqual({
      action: 'chat',
      text: 'hi there',
      from: 'user-7',
      place: 'direct',
      conversation: 'user-7',
      dedupeKey: null,
      replyTo: {},
    });
    expect(inbound.ack('job-1', false)).toEqual({ status: 202, body: { id: 'job-1', status: 'queued' } });
  });

  it('uses the Idempotency-Key header as the dedupe key', () => {
    const inbound = parseGenericRequest(jsonRequest({ text: 'hi', from: 'u' }, { 'idempotency-key': 'req-42' }));
    expect(inbound.kind === 'message' && inbound.message.dedupeKey).toBe('req-42');
  });

  it('refuses an Idempotency-Key longer than 256 characters', () => {
    const error = badRequest(jsonRequest({ text: 'hi', from: 'u' }, { 'idempotency-key': 'k'.repeat(257) }));
    expect(error.status).toBe(400);
    expect(error.param).toBe('Idempotency-Key');
  });

  it('accepts a reset without text', () => {
    const inbound = parseGenericRequest(jsonRequest({ from: 'user-7', action: 'reset' }));
    expect(inbound.kind === 'message' && inbound.message).toMatchObject({ action: 'reset', text: '', conversation: 'user-7' });
  });

  it('ignores fields it does not know', () => {
    const inbound = parseGenericRequest(jsonRequest({ text: 'hi', from: 'u', meta: { a: 1 } }));
    expect(inbound.kind).toBe('message');
  });

  it('answers 400 naming text when a chat has no text, empty text or blank text', () => {
    for (const body of [{ from: 'u' }, { from: 'u', text: '' }, { from: 'u', text: '  \n' }, { from: 'u', action: 'chat' }]) {
      const error = badRequest(jsonRequest(body));
      expect(error.status).toBe(400);
      expect(error.param).toBe('text');
    }
  });

  it('records attachments as references: a URL as given, data as a data: URL, the kind from the declared type', () => {
    const inbound = parseGenericRequest(
      jsonRequest({
        from: 'u',
        attachments: [
          { url: 'https://files.example.com/receipt.jpg', type: 'image/jpeg', name: 'receipt.jpg' },
          { data: 'iVBORw0KGgo=', type: 'image/png' },
          { data: 'data:text/plain;base64,aGk=' },
        ],
      }),
    );
    expect(inbound).toMatchObject({
      kind: 'message',
      message: {
        text: '',
        media: [
          { kind: 'image', ref: 'https://files.example.com/receipt.jpg', type: 'image/jpeg', name: 'receipt.jpg' },
          { kind: 'image', ref: 'data:image/png;base64,iVBORw0KGgo=', type: 'image/png' },
          { kind: 'document', ref: 'data:text/plain;base64,aGk=' },
        ],
      },
    });
  });

  it('answers 400 naming the attachment for one with both url and data, a non-http URL or data that is not base64', () => {
    for (const attachment of [{ url: 'https://a.example/x', data: 'AAAA' }, { url: 'file:///etc/passwd' }, { data: '%%%' }]) {
      const error = badRequest(jsonRequest({ from: 'u', attachments: [attachment] }));
      expect(error.status).toBe(400);
      expect(error.param).toMatch(/^attachments/);
    }
  });

  it('answers 400 naming action for an unknown action', () => {
    const error = badRequest(jsonRequest({ from: 'u', text: 'hi', action: 'delete' }));
    expect(error.status).toBe(400);
    expect(error.param).toBe('action');
  });

  it('answers 400 naming the field whose type is wrong', () => {
    expect(badRequest(jsonRequest({ from: 'u', text: 42 })).param).toBe('text');
    expect(badRequest(jsonRequest({ from: 7, text: 'hi' })).param).toBe('from');
    expect(badRequest(jsonRequest({ text: 'hi' })).param).toBe('from');
    expect(badRequest(jsonRequest({ from: '', text: 'hi' })).param).toBe('from');
    expect(badRequest(jsonRequest({ from: 'u'.repeat(257), text: 'hi' })).param).toBe('from');
  });

  it('answers 400 for broken JSON or a body that is not an object', () => {
    const broken = badRequest(jsonRequest('{"text": "hi",'));
    expect(broken.status).toBe(400);
    expect(broken.code).toBe('invalid_json');
    expect(badRequest(jsonRequest([1, 2])).status).toBe(400);
    expect(badRequest(jsonRequest('')).status).toBe(400);
  });
});
