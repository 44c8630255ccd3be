import {
  type TranscriptionRequest,
  transcriptionRequestSchema,
  upstreamError,
  upstreamTranscriptionSchema,
} from '@switchboard/protocol';
import { FormData } from 'undici';
import type { ProviderTranscription, TranscriptionInput } from '../provider.js';

/** The fields sent on: the ones the schema knows (others the client sent are not passed to the upstream). */
const FORWARDED = Object.keys(transcriptionRequestSchema.shape).filter((key) => key !== 'model' && key !== 'stream') as (
  | 'language'
  | 'prompt'
  | 'temperature'
  | 'response_format'
)[];

/**
 * The upstream form, as OpenAI's API reference documents it (and the `openai` package sends it):
 * `file` (the bytes, with their file name) and `model` first, then the optional text fields.
 */
export function toUpstreamForm(input: TranscriptionInput, upstreamModel: string): FormData {
  const form = new FormData();
  form.append('file', input.file, input.filename);
  form.append('model', upstreamModel);
  const fields: Partial<TranscriptionRequest> = input.fields;
  for (const key of FORWARDED) {
    const value = fields[key];
    if (value !== undefined) form.append(key, String(value));
  }
  return form;
}

/** The upstream's answer: plain text for `text`, else a JSON object with `text` (502 when not). */
export function fromUpstreamTranscription(
  provider: string,
  format: TranscriptionRequest['response_format'],
  body: string,
): ProviderTranscription {
  if (format === 'text') return { format: 'text', text: body };
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  const parsed = upstreamTranscriptionSchema.safeParse(json);
  if (!parsed.success) {
    throw upstreamError(`Upstream '${provider}' returned a response that is not a transcription.`, 'upstream_invalid_response');
  }
  const { usage, ...rest } = parsed.data;
  // The usage goes back to the client as the upstream sent it; a shape we could not read is left out.
  return { format: 'json', body: usage ? { ...rest, usage } : rest, usage };
}
