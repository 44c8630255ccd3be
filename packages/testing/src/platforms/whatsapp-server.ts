import { createHash } from 'node:crypto';
import { type Handler, type LocalServer, type RecordedRequest, sendJson, startLocalServer } from '../http-server.js';
import { graphError, type WhatsAppSendResult } from './whatsapp.js';

/**
 * A local Graph API for the WhatsApp Cloud API that enforces what the documentation says: the
 * access token as a Bearer header, `POST /{version}/{phone_number_id}/messages` with
 * `messaging_product: "whatsapp"` and a text body of at most 4096 characters (or an interactive
 * reply buttons message, checked as its reference says: see `replyButtons`), and the 24-hour
 * customer-service window — a free-form message to a customer who has not written within 24
 * hours is refused with error 131047 "Re-engagement message". `GET /{version}/{phone_number_id}`
 * answers the number's details (the credential check). Media customers sent are served the
 * two-step way Meta documents
 * (https://developers.facebook.com/documentation/business-messaging/whatsapp/business-phone-numbers/media/): `GET /{version}/{media-id}` answers
 * `{messaging_product, url, mime_type, sha256, file_size, id}`, and the `url` (Meta's
 * lookaside.fbsbx.com `/whatsapp_business/attachments/?mid=…`, here on this server) gives the
 * bytes — both only with the access token.
 */
export interface FakeWhatsAppOptions {
  accessToken: string;
  phoneNumberId: string;
}

export interface WhatsAppSent {
  to: string;
  body: string;
  /** The message it quotes, when it has a `context`. */
  replyTo?: string;
  /** `group` when `to` is a group id (the Groups API's send: recipient_type "group"). */
  recipientType?: 'group';
  /** The message's wamid, as the send answered it. */
  id: string;
  /** An interactive reply buttons message's buttons (`body` is then its body text). */
  buttons?: { id: string; title: string }[];
}

/** The Graph API's behaviour, to serve from any local server (`startHookHarness`'s platform). */
export interface WhatsAppGraph {
  handler: Handler;
  /** Text messages accepted, oldest first. */
  sent: WhatsAppSent[];
  /** The customer wrote at `at` (Unix ms; default now): free-form replies are allowed for 24 hours. */
  customerWrote(waId: string, at?: number): void;
  /** Stores a file a customer sent; its media id, for a webhook's `image.id`, `audio.id`… */
  addMedia(bytes: Buffer, mimeType: string): string;
  /** Media downloads served (the second step), token checked. */
  readonly mediaDownloads: number;
}

export interface FakeWhatsApp extends WhatsAppGraph {
  url: string;
  server: LocalServer;
  close(): Promise<void>;
}

const LIMIT = 4096;
const WINDOW_MS = 24 * 60 * 60 * 1000;

export async function startFakeWhatsApp(options: FakeWhatsAppOptions): Promise<FakeWhatsApp> {
  const graph = whatsappGraph(options);
  const server = await startLocalServer(graph.handler);
  // Onto the graph itself, not a spread copy: `mediaDownloads` is a getter.
  return Object.assign(graph, { url: server.url, server, close: () => server.close() });
}

export function whatsappGraph(options: FakeWhatsAppOptions): WhatsAppGraph {
  const lastWrote = new Map<string, number>();
  const sent: WhatsAppSent[] = [];
  const media = new Map<string, { bytes: Buffer; mimeType: string }>();
  let mediaDownloads = 0;
  let nextId = 1;

  const handler: Handler = (req: RecordedRequest, res) => {
    if (req.headers.authorization !== `Bearer ${options.accessToken}`) {
      return sendJson(res, 401, graphError(190, 'Invalid OAuth access token - Cannot parse access token'));
    }
    const url = new URL(req.url, `http://${req.headers.host}`);
    if (req.method === 'GET' && url.pathname === '/whatsapp_business/attachments/') {
      const file = media.get(url.searchParams.get('mid') ?? '');
      if (!file) return sendJson(res, 404, graphError(100, 'Media not found'));
      mediaDownloads++;
      res.writeHead(200, { 'content-type': file.mimeType, 'content-length': String(file.bytes.length) });
      return void res.end(file.bytes);
    }
    const mediaId = /^\/v\d+\.\d+\/(\d+)$/.exec(url.pathname)?.[1];
    const file = mediaId === undefined ? undefined : media.get(mediaId);
    if (req.method === 'GET' && mediaId !== undefined && file) {
      return sendJson(res, 200, {
        messaging_product: 'whatsapp',
        url: `${url.origin}/whatsapp_business/attachments/?mid=${mediaId}&ext=${Math.floor(Date.now() / 1000) + 300}&hash=fake`,
        mime_type: file.mimeType,
        sha256: createHash('sha256').update(file.bytes).digest('hex'),
        file_size: file.bytes.length,
        id: mediaId,
      });
    }
    const path = /^\/v\d+\.\d+\/(\d+)(\/messages)?$/.exec(req.url);
    if (!path || path[1] !== options.phoneNumberId) {
      return sendJson(res, 400, graphError(100, 'Unsupported request - method type or object does not exist'));
    }
    if (req.method === 'GET' && !path[2]) {
      // https://developers.facebook.com/docs/whatsapp/business-management-api/manage-phone-numbers#get-a-single-phone-number
      return sendJson(res, 200, {
        verified_name: 'Switchboard',
        code_verification_status: 'VERIFIED',
        display_phone_number: '15550783881',
        quality_rating: 'GREEN',
        platform_type: 'CLOUD_API',
        throughput: { level: 'STANDARD' },
        id: options.phoneNumberId,
      });
    }
    if (req.method !== 'POST' || !path[2]) return sendJson(res, 400, graphError(100, 'Unsupported request'));
    const body = (req.json ?? {}) as {
      messaging_product?: string;
      recipient_type?: string;
      to?: string;
      type?: string;
      text?: { body?: string };
      interactive?: unknown;
      context?: { message_id?: string };
    };
    const buttons = body.type === 'interactive' ? replyButtons(body.interactive) : undefined;
    if (body.type === 'interactive' && !buttons) {
      return sendJson(res, 400, graphError(131009, 'Parameter value is not valid', 'interactive reply buttons message'));
    }
    const text = buttons ? (body.interactive as { body: { text: string } }).body.text : body.text?.body;
    if (
      body.messaging_product !== 'whatsapp' ||
      typeof body.to !== 'string' ||
      (body.type !== 'text' && !buttons) ||
      typeof text !== 'string'
    ) {
      return sendJson(res, 400, graphError(100, 'Invalid parameter'));
    }
    if (text.length > LIMIT || text.trim() === '') {
      return sendJson(res, 400, graphError(131009, 'Parameter value is not valid', 'text.body must be 1 to 4096 characters'));
    }
    const wrote = lastWrote.get(body.to);
    if (wrote === undefined || Date.now() - wrote > WINDOW_MS) {
      return sendJson(
        res,
        400,
        graphError(
          131047,
          'Re-engagement message',
          'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
        ),
      );
    }
    const id = `wamid.fake${nextId++}`;
    sent.push({
      to: body.to,
      body: text,
      id,
      ...(body.context?.message_id ? { replyTo: body.context.message_id } : {}),
      ...(body.recipient_type === 'group' ? { recipientType: 'group' as const } : {}),
      ...(buttons ? { buttons } : {}),
    });
    sendJson(res, 200, {
      messaging_product: 'whatsapp',
      contacts: [{ input: body.to, wa_id: body.to }],
      messages: [{ id }],
    } satisfies WhatsAppSendResult);
  };
  return {
    handler,
    sent,
    customerWrote: (waId, at = Date.now()) => void lastWrote.set(waId, at),
    addMedia(bytes, mimeType) {
      const id = String(7_000_000_000 + media.size);
      media.set(id, { bytes, mimeType });
      return id;
    },
    get mediaDownloads() {
      return mediaDownloads;
    },
  };
}

/**
 * An interactive reply buttons message's buttons, when it is one as the reference allows
 * (developers.facebook.com/documentation/business-messaging/whatsapp/messages/interactive-reply-buttons-messages):
 * `interactive.type` "button", a body text of at most 1024 characters, 1 to 3 `reply` buttons,
 * each an id of at most 256 characters and a title of at most 20, ids unique.
 */
function replyButtons(interactive: unknown): { id: string; title: string }[] | undefined {
  const message = interactive as
    | {
        type?: unknown;
        body?: { text?: unknown };
        action?: { buttons?: { type?: unknown; reply?: { id?: unknown; title?: unknown } }[] };
      }
    | undefined;
  if (message?.type !== 'button' || typeof message.body?.text !== 'string' || message.body.text.length > 1024) return undefined;
  const buttons = message.action?.buttons ?? [];
  if (buttons.length < 1 || buttons.length > 3) return undefined;
  const read = buttons.map((b) =>
    b.type === 'reply' && typeof b.reply?.id === 'string' && typeof b.reply.title === 'string'
      ? { id: b.reply.id, title: b.reply.title }
      : null,
  );
  if (read.some((b) => !b || b.id === '' || b.id.length > 256 || b.title === '' || b.title.length > 20)) return undefined;
  const found = read as { id: string; title: string }[];
  return new Set(found.map((b) => b.id)).size === found.length ? found : undefined;
}
