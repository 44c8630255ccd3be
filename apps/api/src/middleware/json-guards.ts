import { AppError } from '@switchboard/protocol';
import type { Context } from 'koa';

/** Bodies must be JSON: another declared content type is a 415 (none at all is read as JSON). */
export function requireJsonContentType(ctx: Context): void {
  const type = ctx.get('content-type');
  if (!type || ctx.is('application/json', 'application/*+json')) return;
  throw new AppError(`Content-Type '${type.split(';')[0]}' is not supported: send application/json.`, {
    status: 415,
    type: 'invalid_request_error',
    code: 'unsupported_media_type',
  });
}
