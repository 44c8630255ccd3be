import { z } from 'zod';

/** The answers this gateway passes on; `srt` and `vtt` are refused (issue 21 names these three). */
export const TRANSCRIPTION_FORMATS = ['json', 'text', 'verbose_json'] as const;
export type TranscriptionFormat = (typeof TRANSCRIPTION_FORMATS)[number];

/**
 * The text fields of POST /v1/audio/transcriptions (multipart/form-data, so every value arrives as
 * a string; `temperature` is read as a number). The `file` part is the route's: it is a file, not
 * a field. Loose like the other /v1 bodies: fields it does not know are ignored, not sent on.
 * Shape: the `openai` package's `TranscriptionCreateParams` (resources/audio/transcriptions.d.ts).
 */
export const transcriptionRequestSchema = z.looseObject({
  model: z.string().min(1),
  language: z.string().min(1).max(32).optional(),
  prompt: z.string().max(10_000).optional(),
  temperature: z.coerce.number().min(0).max(1).optional(),
  response_format: z
    .enum(TRANSCRIPTION_FORMATS, { error: `response_format must be one of ${TRANSCRIPTION_FORMATS.join(', ')}` })
    .default('json'),
  stream: z
    .enum(['false'], { error: 'stream is not supported on this endpoint: the whole transcript is answered at once' })
    .optional(),
});

export type TranscriptionRequest = z.infer<typeof transcriptionRequestSchema>;

/**
 * What a transcription call used, as OpenAI reports it: tokens for the `gpt-4o-*-transcribe`
 * models, the audio's duration for `whisper-1` (`Transcription.Usage` in the `openai` package).
 */
export const transcriptionUsageSchema = z.discriminatedUnion('type', [
  z.looseObject({
    type: z.literal('tokens'),
    input_tokens: z.number().int().nonnegative(),
    output_tokens: z.number().int().nonnegative(),
    total_tokens: z.number().int().nonnegative().optional(),
  }),
  z.looseObject({ type: z.literal('duration'), seconds: z.number().nonnegative() }),
]);

export type TranscriptionUsage = z.infer<typeof transcriptionUsageSchema>;

/**
 * An upstream's `json` or `verbose_json` answer. Loose: `verbose_json` adds `language`,
 * `duration`, `segments`, `words`, and `json` may carry `logprobs`, all passed on untouched.
 * A usage object we cannot read is dropped rather than failing the transcript.
 */
export const upstreamTranscriptionSchema = z.looseObject({
  text: z.string(),
  usage: transcriptionUsageSchema.optional().catch(undefined),
});

export type UpstreamTranscription = z.infer<typeof upstreamTranscriptionSchema>;
