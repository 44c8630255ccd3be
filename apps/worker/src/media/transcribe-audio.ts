import type { MediaRef } from '@switchboard/protocol';
import type { WorkerDeps } from '../deps.js';
import { hookCall } from '../hook-call.js';
import type { MessageJob } from '../message-job.js';
import { MediaRefusal } from './download-media.js';

/**
 * Containers OpenAI's transcription takes (flac, mp3, mp4, mpeg, mpga, m4a, ogg, wav, webm), as
 * file-type names them; a voice note recorded in a browser is WebM, which file-type calls video.
 */
export function isAudioType(mime: string): boolean {
  return mime.startsWith('audio/') || mime === 'video/webm' || mime === 'video/mp4' || mime === 'video/ogg';
}

/** A voice note as text: for the model (the transcript) and for memory (`[voice 0:14] <transcript>`). */
export interface HeardAudio {
  text: string;
  memo: string;
}

/**
 * Transcribes a voice note or audio file with the hook's `media.audio` model, through
 * `Gateway.transcribe` — the call POST /v1/audio/transcriptions makes, routes and fallbacks
 * included — metered as the hook's usage like its chat calls. A transcription that fails (the
 * model unknown, the upstream refusing the file, every deployment down) is a polite reply, not a
 * retry: the failure is logged as a warning, without the audio. A cancelled job is cancelled.
 */
export async function transcribeAudio(
  deps: WorkerDeps,
  job: MessageJob,
  audio: { bytes: Buffer; ref: MediaRef; mime: string; ext: string; model: string },
  signal: AbortSignal,
): Promise<HeardAudio> {
  const { bytes, ref, mime, ext, model } = audio;
  const metered = await deps.meter.open({ ...hookCall(job, []), model, prompt: '' });
  let text: string;
  let seconds = ref.seconds;
  try {
    const { transcription } = await deps.gateway.transcribe(
      {
        file: new Blob([new Uint8Array(bytes)], { type: mime }),
        filename: uploadName(ref.name, ext),
        fields: { model, response_format: 'json' },
      },
      { signal, requestId: job.jobId, onUsage: metered.onUsage },
    );
    text = (transcription.format === 'text' ? transcription.text : transcription.body.text).trim();
    if (transcription.format === 'json' && transcription.usage?.type === 'duration') seconds ??= transcription.usage.seconds;
  } catch (err) {
    if (signal.aborted) throw err;
    deps.logger.warn('voice note not transcribed: answered as not heard', {
      hook: job.hook.name,
      jobId: job.jobId,
      model,
      error: (err as Error).message,
    });
    throw new MediaRefusal('unheard', 'the transcription failed');
  } finally {
    metered.close();
  }
  if (!text) throw new MediaRefusal('unheard', 'the transcript is empty');
  const label = seconds === undefined ? '[voice]' : `[voice ${clock(seconds)}]`;
  return { text, memo: `${label} ${text}` };
}

/** `0:14`, `12:05`, `1:02:03`. */
export function clock(seconds: number): string {
  const whole = Math.round(seconds);
  const [h, m, s] = [Math.floor(whole / 3600), Math.floor((whole % 3600) / 60), whole % 60];
  const pad = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
}

/** The name the upstream reads the format from: the sender's name with the extension the bytes show. */
function uploadName(name: string | undefined, ext: string): string {
  const base = (name ?? 'audio').replace(/\.[^.]*$/, '') || 'audio';
  return `${base}.${ext === 'opus' || ext === 'oga' ? 'ogg' : ext}`;
}
