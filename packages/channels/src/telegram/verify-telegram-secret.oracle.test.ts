import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { InboundRequest } from '../definition.js';
import { ORACLE_RUNS, ourDecision, Tally } from '../test-support/oracle.js';
import { verifyTelegramSecret } from './verify-telegram-secret.js';

/**
 * Telegram signs nothing and publishes no verifier: the Bot API's setWebhook takes a
 * `secret_token` ("1-256 characters. Only characters A-Z, a-z, 0-9, _ and - are allowed") and
 * sends it back "in a header 'X-Telegram-Bot-Api-Secret-Token' in every webhook request"
 * (https://core.telegram.org/bots/api#setwebhook). The reference is that sentence: the header,
 * present, equal to the secret, byte for byte.
 */

const secrets = fc.stringMatching(/^[A-Za-z0-9_-]{1,256}$/);

describe('verifyTelegramSecret against the Bot API documentation', () => {
  it('accepts exactly the requests whose header equals the secret_token', async () => {
    const tally = new Tally();
    await fc.assert(
      fc.asyncProperty(
        secrets,
        fc.constantFrom('same', 'same', 'other', 'case changed', 'prefix', 'longer', 'padded', 'empty', 'missing', 'joined'),
        secrets,
        async (secret, kind, other) => {
          const header = {
            same: secret,
            other,
            'case changed': secret.toUpperCase() === secret ? secret.toLowerCase() : secret.toUpperCase(),
            prefix: secret.slice(0, -1),
            longer: `${secret}x`,
            padded: ` ${secret}`,
            empty: '',
            missing: undefined,
            // A header sent twice reaches us joined by Node (RFC 9110 §5.3).
            joined: `${secret}, ${other}`,
          }[kind];
          const request: InboundRequest = {
            headers: header === undefined ? {} : { 'x-telegram-bot-api-secret-token': header },
            rawBody: Buffer.from('{"update_id":1}'),
            now: Date.now(),
          };
          const ours = await ourDecision(() => verifyTelegramSecret(request, secret));
          expect({ ours, kind }).toEqual({ ours: header === secret, kind });
          tally.add(ours);
        },
      ),
      { numRuns: ORACLE_RUNS },
    );
    expect(tally.accepted).toBeGreaterThan(0);
    expect(tally.refused).toBeGreaterThan(0);
  });
});
