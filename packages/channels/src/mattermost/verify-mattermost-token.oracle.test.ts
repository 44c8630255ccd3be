import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { InboundRequest } from '../definition.js';
import { ORACLE_RUNS, ourDecision, Tally } from '../test-support/oracle.js';
import { readMattermostBody } from './read-mattermost-body.js';
import { verifyMattermostToken } from './verify-mattermost-token.js';

/**
 * Mattermost signs nothing and publishes no verifier: outgoing webhooks and slash commands carry
 * the integration's `token` as a field of the request, form-encoded (slash commands always; an
 * outgoing webhook as set up) or JSON, for the receiver to compare
 * (https://developers.mattermost.com/integrate/slash-commands/custom/,
 * https://developers.mattermost.com/integrate/webhooks/outgoing/). The server writes the form with
 * Go's `url.Values.Encode` (keys sorted, `QueryEscape`: space as `+`), and a Go receiver reads it
 * with `FormValue`, the first value of a repeated field. The reference: that first `token`,
 * equal to one of the hook's tokens.
 */

/** Go's url.QueryEscape: unreserved bytes kept, space as '+', everything else %XX (upper case). */
function queryEscape(value: string): string {
  return [...Buffer.from(value, 'utf8')]
    .map((byte) => {
      const ch = String.fromCharCode(byte);
      if (/[A-Za-z0-9\-_.~]/.test(ch)) return ch;
      if (ch === ' ') return '+';
      return `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');
}

/** Go's url.Values.Encode: sorted by key, values of a key in order. */
function goForm(fields: [string, string][]): string {
  return [...fields]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => `${queryEscape(key)}=${queryEscape(value)}`)
    .join('&');
}

/** Mattermost's tokens are 26-character ids of lower-case letters and digits. */
const tokens = fc.stringMatching(/^[a-z0-9]{26}$/);

describe('verifyMattermostToken against the documented token field', () => {
  it('accepts exactly the requests whose first token field is one of the hook’s tokens', async () => {
    const tally = new Tally();
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          hookTokens: fc.array(tokens, { minLength: 1, maxLength: 2 }),
          sent: fc.oneof(fc.constant('first hook token'), fc.constant('last hook token'), tokens, fc.constant(''), fc.string()),
          repeated: fc.option(fc.oneof(tokens, fc.string()), { nil: undefined }),
          others: fc.array(
            fc.tuple(
              fc.string({ minLength: 1 }).filter((k) => k !== 'token'),
              fc.string({ unit: 'binary' }),
            ),
            {
              maxLength: 4,
            },
          ),
          encoding: fc.constantFrom('form', 'json', 'no token'),
        }),
        async (c) => {
          const sent =
            c.sent === 'first hook token' ? c.hookTokens[0]! : c.sent === 'last hook token' ? c.hookTokens.at(-1)! : c.sent;
          let body: string;
          let type: string;
          if (c.encoding === 'json') {
            body = JSON.stringify({ ...Object.fromEntries(c.others), token: sent });
            type = 'application/json';
          } else {
            const fields: [string, string][] = [...c.others];
            if (c.encoding === 'form') fields.push(['token', sent]);
            if (c.encoding === 'form' && c.repeated !== undefined) fields.push(['token', c.repeated]);
            body = goForm(fields);
            type = 'application/x-www-form-urlencoded';
          }
          const request: InboundRequest = { headers: { 'content-type': type }, rawBody: Buffer.from(body), now: Date.now() };
          const ours = await ourDecision(() => verifyMattermostToken(readMattermostBody(request), c.hookTokens));
          const reference = c.encoding !== 'no token' && sent !== '' && c.hookTokens.includes(sent);
          expect({ ours, case: c }).toEqual({ ours: reference, case: c });
          tally.add(ours);
        },
      ),
      { numRuns: ORACLE_RUNS },
    );
    expect(tally.accepted).toBeGreaterThan(0);
    expect(tally.refused).toBeGreaterThan(0);
  });
});
