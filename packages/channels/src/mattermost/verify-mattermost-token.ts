import { unauthorized } from '@switchboard/protocol';
import { z } from 'zod';
import { safeEqual } from '../safe-equal.js';

const tokenSchema = z.looseObject({ token: z.string() });

/**
 * Checks the `token` field Mattermost puts in every outgoing-webhook and slash-command request
 * against the hook's tokens (each compared in constant time, all of them every time).
 *
 * @throws AppError 401 `invalid_token` when the field is missing or matches none.
 */
export function verifyMattermostToken(fields: unknown, tokens: readonly string[]): void {
  const parsed = tokenSchema.safeParse(fields);
  if (!parsed.success || parsed.data.token === '') throw unauthorized('Missing Mattermost token.', 'invalid_token');
  const given = parsed.data.token;
  const matches = tokens.map((token) => safeEqual(given, token));
  if (!matches.includes(true)) throw unauthorized('Invalid Mattermost token.', 'invalid_token');
}
