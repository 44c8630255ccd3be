import { AppError, unauthorized } from '@switchboard/protocol';
import { errors, type JWTPayload, jwtVerify } from 'jose';
import type { InboundRequest } from '../definition.js';
import { headerValue } from '../inbound.js';
import { signingKeys } from './teams-keys.js';

/** Who issues the tokens the Bot Framework Connector sends to bots. */
export const BOT_FRAMEWORK_ISSUER = 'https://api.botframework.com';
/** Clock skew allowed on `exp` and `nbf`, as the Bot Framework SDKs allow. */
const CLOCK_TOLERANCE_SECONDS = 5 * 60;

export interface TeamsTokenOptions {
  /** The bot's Microsoft App ID: the token's audience. */
  appId: string;
  openIdMetadataUrl: string;
}

/**
 * Validates the `Authorization: Bearer` JWT the Connector puts on every activity: RS256 signed by
 * a key of the issuer's JWKS (from its OpenID metadata), `iss` the Bot Framework, `aud` our app
 * id, not expired (5 minutes' skew), and carrying a `serviceUrl` claim. Returns that claim, which
 * the activity's own `serviceUrl` must equal.
 *
 * @throws AppError 401 `invalid_token` for a missing or invalid token; 503 when the keys cannot be read.
 */
export async function verifyTeamsToken(request: InboundRequest, options: TeamsTokenOptions): Promise<string> {
  const header = headerValue(request.headers, 'authorization');
  const match = header ? /^Bearer +([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/.exec(header) : null;
  if (!match) throw unauthorized('Missing or malformed Authorization: Bearer token.', 'invalid_token');
  const keys = await signingKeys(options.openIdMetadataUrl);
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(match[1]!, keys, {
      issuer: BOT_FRAMEWORK_ISSUER,
      audience: options.appId,
      algorithms: ['RS256'],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      currentDate: new Date(request.now),
      requiredClaims: ['exp'],
    }));
  } catch (err) {
    throw tokenRefusal(err);
  }
  if (typeof payload.serviceUrl !== 'string' || payload.serviceUrl === '') {
    throw unauthorized('The token has no serviceUrl claim.', 'invalid_token');
  }
  return payload.serviceUrl;
}

/** The keys being unreachable is not the caller's fault (503, the Connector retries); anything else about the token is (401). */
function tokenRefusal(err: unknown): AppError {
  // jose lets the key set's fetch failure through as fetch's own TypeError; everything else it throws is a JOSEError.
  const unreachable = err instanceof errors.JWKSTimeout || (err instanceof TypeError && /fetch/i.test(err.message));
  if (unreachable) {
    return new AppError("The Bot Framework's signing keys could not be read; try again shortly.", {
      status: 503,
      type: 'service_unavailable_error',
      code: 'signing_keys_unavailable',
      cause: err,
    });
  }
  const reason = err instanceof errors.JWTExpired ? 'The token has expired.' : 'Invalid Bot Framework token.';
  return unauthorized(reason, 'invalid_token');
}
