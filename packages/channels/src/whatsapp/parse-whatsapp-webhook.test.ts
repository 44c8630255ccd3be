import {
  WHATSAPP_PHONE_NUMBER_ID,
  whatsappButtonReplyWebhook,
  whatsappStatusWebhook,
  whatsappTextWebhook,
} from '@switchboard/testing';
import { describe, expect, it } from 'vitest';
import { appErrorFrom } from '../test-support/errors.js';
import { parseWhatsAppWebhook } from './parse-whatsapp-webhook.js';

const ignored = { kind: 'answer', answer: { status: 200, body: { ok: true } } };

describe('parseWhatsAppWebhook', () => {
  it('queues a text message as a reply to its sender from the number it was sent to, deduplicated by wamid', () => {
    const body = whatsappTextWebhook();
    const inbound = parseWhatsAppWebhook(body);
    expect(inbound.kind).toBe('messages');
    if (inbound.kind !== 'messages') return;
    const wamid = body.entry[0].changes[0].value.messages[0]!.id;
    expect(inbound.messages).toEqual([
      {
        action: 'chat',
        text: 'Does it come in another color?',
        from: '16505551234',
        fromName: 'Sheena Nelson',
        place: 'direct',
        addressed: false,
        conversation: `${WHATSAPP_PHONE_NUMBER_ID}:16505551234`,
        dedupeKey: wamid,
        replyTo: { phone_number_id: WHATSAPP_PHONE_NUMBER_ID, to: '16505551234', message_id: wamid },
      },
    ]);
    expect(inbound.ack()).toEqual({ status: 200, body: { ok: true } });
  });

  it('answers a group message in the group, addressed when it replies to the business or @-mentions its number', () => {
    const read = (message: Record<string, unknown>) => {
      const inbound = parseWhatsAppWebhook(whatsappTextWebhook({ group_id: 'G1', ...message }));
      if (inbound.kind !== 'messages') throw new Error('expected messages');
      return inbound.messages[0]!;
    };
    const plain = read({});
    expect(plain).toMatchObject({ place: 'group', addressed: false, conversation: `${WHATSAPP_PHONE_NUMBER_ID}:group:G1` });
    expect(plain.replyTo).toMatchObject({ to: 'G1', recipient_type: 'group' });
    expect(read({ context: { from: '15550783881', id: 'wamid.x' } }).addressed).toBe(true);
    expect(read({ context: { from: '16505550000', id: 'wamid.x' } }).addressed).toBe(false);
    expect(read({ text: { body: 'hey @15550783881 what now' } }).addressed).toBe(true);
  });

  it('keeps every text message of a batched delivery, in order', () => {
    const body = whatsappTextWebhook();
    const [first] = body.entry[0].changes[0].value.messages;
    body.entry[0].changes[0].value.messages.push({ ...first, id: 'wamid.second', text: { body: 'and in blue?' } });
    const inbound = parseWhatsAppWebhook(body);
    expect(inbound.kind === 'messages' && inbound.messages.map((m) => m.text)).toEqual([
      'Does it come in another color?',
      'and in blue?',
    ]);
  });

  it('keeps an image, a voice note and a document as references by media id, with the caption as the text', () => {
    const parsed = (message: Record<string, unknown>) => {
      const inbound = parseWhatsAppWebhook(whatsappTextWebhook({ text: undefined, ...message }));
      return inbound.kind === 'messages' ? inbound.messages[0] : inbound;
    };
    expect(
      parsed({ type: 'image', image: { id: '1001', mime_type: 'image/jpeg', sha256: 'x', caption: 'my receipt' } }),
    ).toMatchObject({
      text: 'my receipt',
      media: [{ kind: 'image', ref: '1001', name: 'photo.jpg', type: 'image/jpeg' }],
    });
    expect(parsed({ type: 'audio', audio: { id: '1002', mime_type: 'audio/ogg; codecs=opus', voice: true } })).toMatchObject({
      text: '',
      media: [{ kind: 'audio', ref: '1002', name: 'voice.ogg', type: 'audio/ogg; codecs=opus' }],
    });
    expect(
      parsed({ type: 'document', document: { id: '1003', mime_type: 'application/pdf', filename: 'q3.pdf', caption: 'read' } }),
    ).toMatchObject({ text: 'read', media: [{ kind: 'document', ref: '1003', name: 'q3.pdf', type: 'application/pdf' }] });
  });

  it('reads a tap on our Approve button as a click on the question it quotes; a tap on another button is acknowledged', () => {
    const tap = whatsappButtonReplyWebhook('wamid.question1', { id: 'y 0123456789abcdef0123456789abcdef 0:0', title: 'Approve' });
    expect(parseWhatsAppWebhook(tap)).toEqual({
      kind: 'click',
      click: {
        jobRef: '0123456789abcdef0123456789abcdef',
        key: '0:0',
        approve: true,
        jobId: '',
        user: '16505551234',
        userName: 'Sheena Nelson',
        prompt: {
          phone_number_id: WHATSAPP_PHONE_NUMBER_ID,
          to: '16505551234',
          message_id: 'wamid.question1',
          recipient_type: 'individual',
        },
        reply: { phone_number_id: WHATSAPP_PHONE_NUMBER_ID, to: '16505551234' },
      },
    });
    expect(parseWhatsAppWebhook(whatsappButtonReplyWebhook('wamid.other', { id: 'change-order', title: 'Change' }))).toEqual(
      ignored,
    );
  });

  it('acknowledges status updates, stickers, other fields and other objects without answering them', () => {
    expect(parseWhatsAppWebhook(whatsappStatusWebhook('read'))).toEqual(ignored);
    expect(parseWhatsAppWebhook(whatsappTextWebhook({ type: 'sticker', text: undefined, sticker: { id: '1' } }))).toEqual(
      ignored,
    );
    expect(parseWhatsAppWebhook(whatsappTextWebhook({ text: { body: '  ' } }))).toEqual(ignored);
    expect(
      parseWhatsAppWebhook({
        object: 'whatsapp_business_account',
        entry: [{ changes: [{ field: 'account_update', value: {} }] }],
      }),
    ).toEqual(ignored);
    expect(parseWhatsAppWebhook({ object: 'page', entry: [] })).toEqual(ignored);
  });

  it('ignores messages to another business number when the hook names its own', () => {
    expect(parseWhatsAppWebhook(whatsappTextWebhook(), { phoneNumberId: '999' })).toEqual(ignored);
    expect(parseWhatsAppWebhook(whatsappTextWebhook(), { phoneNumberId: WHATSAPP_PHONE_NUMBER_ID }).kind).toBe('messages');
  });

  it('answers 400 naming the field for a body that is not a webhook', () => {
    expect(appErrorFrom(() => parseWhatsAppWebhook({ entry: [] })).param).toBe('object');
    expect(appErrorFrom(() => parseWhatsAppWebhook({ object: 'whatsapp_business_account' })).param).toBe('entry');
    expect(appErrorFrom(() => parseWhatsAppWebhook(whatsappTextWebhook({ from: 5 }))).param).toBe(
      'entry.0.changes.0.value.messages.0.from',
    );
    expect(appErrorFrom(() => parseWhatsAppWebhook(whatsappTextWebhook({}, { metadata: {} }))).param).toBe(
      'entry.0.changes.0.value.metadata.phone_number_id',
    );
    expect(appErrorFrom(() => parseWhatsAppWebhook('webhook')).status).toBe(400);
  });
});
