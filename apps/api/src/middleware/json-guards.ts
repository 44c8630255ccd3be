import { AppError } from '@switchboard/protocol';
import type { Context } from 'koa';

/** Bodies must be JSON: another declared content type is a 415 (none at all is read as JSON). */
export function requireJsonContentType(ctx: Context): void {
  requireContentType(ctx, ['application/json', 'application/*+json']);
}

/** Bodies must be of one of `types` (the first is named in the 415); none declared is accepted. */
export function requireContentType(ctx: Context, types: readonly string[]): void {
  const type = ctx.get('content-type');
  if (!type || ctx.is(...types)) return;
  throw new AppError(`Content-Type '${type.split(';')[0]}' is not supported: send ${types[0]}.`, {
    status: 415,
    type: 'invalid_request_error',
    code: 'unsupported_media_type',
  });
}
