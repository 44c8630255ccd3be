import { joinUrl } from '@switchboard/http';
import { isRetryableStatus, type MediaRef } from '@switchboard/protocol';
import { z } from 'zod';
import type { DeliveryContext } from '../definition.js';
import { redact } from '../http.js';
import { MediaGoneError, type MediaLocation } from '../media/media-location.js';
import { checkTelegramReply } from './telegram-api-result.js';
import { callTelegram } from './telegram-call.js';

/** `getFile`'s `File` (https://core.telegram.org/bots/api#file): `file_path` is where the bytes are. */
const fileSchema = z.looseObject({ ok: z.literal(true), result: z.looseObject({ file_path: z.string().min(1) }) });

/**
 * Where a file a Telegram message carries is: `getFile` with its file_id, then
 * `<apiUrl>/file/bot<token>/<file_path>` (https://core.telegram.org/bots/api#getfile: "the link
 * will be valid for at least 1 hour"; bots may fetch files up to 20 MB, larger ones are refused
 * with "file is too big"). A refusal is told to the sender; a 429 or 5xx is retried with the job.
 */
export async function locateTelegramFile(
  ref: MediaRef,
  { hook, config, http }: DeliveryContext<{ botToken: string; apiUrl: string }>,
): Promise<MediaLocation> {
  const client = { hook, botToken: config.botToken, apiUrl: config.apiUrl, http };
  const answer = await callTelegram(client, 'getFile', { file_id: ref.ref });
  const file = fileSchema.safeParse(answer.reply.json);
  if (answer.ok && file.success) {
    return { url: joinUrl(config.apiUrl, `file/bot${config.botToken}/${file.data.result.file_path}`) };
  }
  if (isRetryableStatus(answer.reply.status)) checkTelegramReply(answer.label, answer.reply, config.botToken);
  throw new MediaGoneError(
    `${answer.label}: ${redact(answer.description || `status ${answer.reply.status}`, [config.botToken])}`,
  );
}
