import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { AppError, invalidRequest } from '@switchboard/protocol';
import type { Context, Middleware } from 'koa';
import { koaBody, type ScalarOrArrayFiles } from 'koa-body';

/** One uploaded file as formidable describes it (`filepath`, `originalFilename`, `mimetype`, `size`). */
export type UploadedFile = Exclude<ScalarOrArrayFiles[string], unknown[]>;

/** Room for the text fields and the parts' headers around the file, in a declared Content-Length. */
const FORM_OVERHEAD_BYTES = 64 * 1024;

/** formidable's codes (formidable/src/FormidableError.js) for a file past its limits, and for a client gone. */
const FILE_TOO_LARGE = new Set([1009, 1016]);
const ABORTED = 1002;

/**
 * Reads a multipart/form-data body (the one route that takes it, route-policy.ts `multipart`): its
 * text fields into `ctx.request.body` (one string each), its one file into `ctx.request.files`,
 * written by formidable to the temporary directory — never held in memory — and read no further
 * than `maxFileBytes`: a larger file is a 413 at the byte that crosses the limit (formidable stops
 * writing and removes what it wrote). Files are removed once the route is done, however it ended.
 * Another content type is a 400, as OpenAI answers it.
 */
export function multipartBody(maxFileBytes: number): Middleware {
  const parse = koaBody({
    json: false,
    text: false,
    urlencoded: false,
    multipart: true,
    formidable: {
      uploadDir: tmpdir(),
      maxFiles: 1,
      maxFileSize: maxFileBytes,
      maxTotalFileSize: maxFileBytes,
      maxFields: 32,
      maxFieldsSize: FORM_OVERHEAD_BYTES,
      allowEmptyFiles: false,
    },
    onError: (err) => {
      throw multipartError(err, maxFileBytes);
    },
  });
  return async (ctx, next) => {
    if (!ctx.is('multipart/form-data')) {
      throw invalidRequest(
        'Send this request as multipart/form-data, with the audio in a `file` part and a `model` field.',
        null,
        'invalid_body',
      );
    }
    if (Number(ctx.get('content-length')) > maxFileBytes + FORM_OVERHEAD_BYTES) throw fileTooLarge(maxFileBytes);
    try {
      await parse(ctx, async () => {
        ctx.request.body = singleValues(ctx.request.body);
        await next();
      });
    } finally {
      await removeFiles(ctx);
    }
  };
}

/** The uploaded files of a request, as formidable lists them (one, or several of one name). */
export function uploadedFiles(ctx: Context): UploadedFile[] {
  return Object.values(ctx.request.files ?? {}).flatMap((value) => (Array.isArray(value) ? value : [value]));
}

async function removeFiles(ctx: Context): Promise<void> {
  await Promise.all(uploadedFiles(ctx).map((file) => rm(file.filepath, { force: true }).catch(() => {})));
}

/** formidable gives every field as a list: the first value of each (as OpenAI's fields are single). */
function singleValues(body: unknown): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries((body ?? {}) as Record<string, unknown>)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string') fields[name] = first;
  }
  return fields;
}

function fileTooLarge(limit: number): AppError {
  return new AppError(`The audio file is larger than ${limit} bytes (limits.maxAudioBytes).`, {
    status: 413,
    type: 'invalid_request_error',
    param: 'file',
    code: 'request_too_large',
  });
}

/** formidable's errors in the OpenAI shape: its 4xx with its words (they name limits, never content). */
function multipartError(err: Error, limit: number): Error {
  const { code, httpCode } = err as Error & { code?: unknown; httpCode?: unknown };
  if (typeof code === 'number' && FILE_TOO_LARGE.has(code)) return fileTooLarge(limit);
  // A client that left mid-upload: the error handler's hang-up (499, logged as info), not a 500.
  if (code === ABORTED) return Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
  if (typeof httpCode !== 'number' || httpCode >= 500) return err;
  return new AppError(`The multipart body could not be read: ${err.message}.`, {
    status: httpCode,
    type: 'invalid_request_error',
    code: httpCode === 413 ? 'request_too_large' : 'invalid_body',
  });
}
