import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { InboundRequest } from '../definition.js';
import { ORACLE_RUNS, ourDecision, Tally } from '../test-support/oracle.js';
import { verifyGenericToken } from './verify-generic-token.js';

/**
 * The generic hook's token is our own contract (docs/channels/generic.md): `Authorization: Bearer
 * <token>` or `X-Hook-Token: <token>`. The reference for the first is RFC 6750 §2.1:
 * `credentials = "Bearer" 1*SP b64token`, the scheme case-insensitive (RFC 9110 §11.1); header
 * values reach us without surrounding whitespace (RFC 9110 §5.5), so a caller's padding is not
 * part of the token.
 */

/** RFC 6750's b64token, at least 8 characters as the config requires. */
const tokens = fc.stringMatching(/^[A-Za-z0-9\-._~+/]{8,40}=*$/);

function bearerMatches(header: string | undefined, token: string): boolean {
  if (header === undefined) return false;
  const value = header.trim();
  const space = value.indexOf(' ');
  if (space < 0 || value.slice(0, space).toLowerCase() !== 'bearer') return false;
  return value.slice(space).replace(/^ +/, '') === token;
}

describe('verifyGenericToken against RFC 6750 and docs/channels/generic.md', () => {
  it('accepts exactly the requests that carry the token in either header', async () => {
    const tally = new Tally();
    await fc.assert(
      fc.asyncProperty(
        tokens,
        tokens,
        fc.constantFrom('Bearer ', 'bearer ', 'BEARER  ', 'Bearer\t', 'Basic ', 'Bearer', '', null),
        fc.constantFrom('token', 'other', 'padded', 'empty', null),
        fc.constantFrom('token', 'other', 'padded', 'longer', null),
        async (token, other, scheme, authorizationValue, hookTokenValue) => {
          const value = (kind: string | null) =>
            kind === 'token'
              ? token
              : kind === 'other'
                ? other
                : kind === 'padded'
                  ? ` ${token} `
                  : kind === 'longer'
                    ? `${token}x`
                    : '';
          const headers: InboundRequest['headers'] = {};
          if (scheme !== null && authorizationValue !== null) headers.authorization = `${scheme}${value(authorizationValue)}`;
          if (hookTokenValue !== null) headers['x-hook-token'] = value(hookTokenValue);
          const request: InboundRequest = { headers, rawBody: Buffer.from('{}'), now: Date.now() };
          const ours = await ourDecision(() => verifyGenericToken(request, token));
          const hookToken = headers['x-hook-token'] as string | undefined;
          const reference =
            bearerMatches(headers.authorization as string | undefined, token) ||
            (hookToken !== undefined && hookToken.trim() === token);
          expect({ ours, headers }).toEqual({ ours: reference, headers });
          tally.add(ours);
        },
      ),
      { numRuns: ORACLE_RUNS },
    );
    expect(tally.accepted).toBeGreaterThan(0);
    expect(tally.refused).toBeGreaterThan(0);
  });
});
