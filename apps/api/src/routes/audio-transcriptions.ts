import { openAsBlob } from 'node:fs';
import type Router from '@koa/router';
import { invalidRequest, transcriptionRequestSchema } from '@switchboard/protocol';
import type { TranscriptionInput } from '@switchboard/providers';
import type { AppDeps } from '../deps.js';
import { type V1CallDeps, v1Call } from '../services/v1-call.js';
import { parseBody } from './parse-body.js';

/**
 * POST /v1/audio/transcriptions for the providers' `audioModels` (and routes over them), in
 * OpenAI's shape: multipart `file` and `model`, optional `language`, `prompt`, `temperature`,
 * `response_format` (json, text, verbose_json). The file (on disk, read by middleware/multipart-body.ts
 * within `limits.maxAudioBytes`) is streamed to the upstream; its answer is passed on as it came.
 * Metered like the other /v1 calls (the upstream's token usage; a duration is a call of 0 tokens);
 * never cached: the file is not part of a cache key.
 */
export function audioTranscriptionsRoutes(router: Router, deps: V1CallDeps & Pick<AppDeps, 'settings'>): void {
  router.post('/v1/audio/transcriptions', async (ctx) => {
    const upload = ctx.request.files?.file;
    const file = Array.isArray(upload) ? upload[0] : upload;
    if (!file) {
      throw invalidRequest("The audio must be sent in a multipart part named 'file'.", 'file', 'missing_file');
    }
    const request = parseBody(
      transcriptionRequestSchema,
      ctx.request.body,
      deps.settings.config.limits.maxJsonDepth,
      '"file" and "model"',
    );
    const input: TranscriptionInput = {
      file: await openAsBlob(file.filepath, { type: file.mimetype ?? '' }),
      filename: file.originalFilename || 'audio',
      fields: request,
    };
    await v1Call(ctx, deps, {
      endpoint: null,
      modelKind: 'audio',
      request,
      temperature: request.temperature,
      estimate: { prompt: request.prompt ?? '' },
      complete: async (plan, call) => {
        const { model, transcription } = await deps.gateway.transcribe(input, call, plan);
        ctx.state.model = model;
        return transcription.format === 'text' ? { text: transcription.text } : transcription.body;
      },
    });
    if (request.response_format === 'text') {
      ctx.body = (ctx.body as { text: string }).text;
      ctx.type = 'text/plain';
    }
  });
}
