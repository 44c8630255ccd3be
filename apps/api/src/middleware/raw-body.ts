import type { IncomingMessage } from 'node:http';
import { AppError } from '@switchboard/protocol';

/** The exact request bytes (signatures are computed over them), at most `limit` of them. */
export async function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function tooLarge(limit: number): AppError {
  return new AppError(`The request body is larger than ${limit} bytes.`, {
    status: 413,
    type: 'invalid_request_error',
    code: 'request_too_large',
  });
}
