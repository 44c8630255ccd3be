import { randomBytes } from 'node:crypto';

/** `chatcmpl-` plus 24 url-safe random characters, as OpenAI's ids look. */
export function completionId(): string {
  return `chatcmpl-${randomBytes(18).toString('base64url')}`;
}

export function unixSeconds(date = Date.now()): number {
  return Math.floor(date / 1000);
}
