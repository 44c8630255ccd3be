import { AppError, unauthorized } from '@switchboard/protocol';
import { decodeProtectedHeader, errors, type JWTPayload, jwtVerify } from 'jose';
import { z } from 'zod';
import type { InboundRequest } from '../definition.js';
import { headerValue } from '../inbound.js';
import { signingKeys } from './teams-keys.js';

/** Who issues the tokens the Bot Framework Connector sends to bots. */
export const BOT_FRAMEWORK_ISSUER = 'https://api.botframework.com';
/**
 * The claim naming the Connector the activity came through: all lowercase, as
 * `AuthenticationConstants.ServiceUrlClaim = 'serviceurl'` in botframework-connector
 * (lib/auth/authenticationConstants.js, 4.23.3) and in botbuilder-dotnet. The activity's own field
 * is `serviceUrl`; the token's is not.
 */
export const SERVICE_URL_CLAIM = 'serviceurl';
/** Clock skew allowed on `exp` and `nbf`: `clockTolerance: 5 * 60` of botframework-connector's ChannelValidation. */
const CLOCK_TOLERANCE_SECONDS = 5 * 60;
/** `AuthenticationConstants.AllowedSigningAlgorithms` of botframework-connector. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512'];

/** A Bot Framework JWK lists the channels it signs for in `endorsements` (not a JWK member of RFC 7517). */
const endorsedKeySchema = z.looseObject({ endorsements: z.array(z.unknown()) });

export interface TeamsTokenOptions {
  /** The bot's Microsoft App ID: the token's audience. */
  appId: string;
  openIdMetadataUrl: string;
}

/** What a verified token vouches for; the activity must agree with it (`parseTeamsActivity`). */
export interface TeamsToken {
  /** The token's `serviceurl` claim, which the activity's `serviceUrl` must equal. */
  serviceUrl: string;
  /** The signing key's `endorsements` (the channels it may sign for), when its JWK lists any. */
  endorsements: readonly unknown[];
}

/**
 * Validates the `Authorization: Bearer` JWT the Connector puts on every activity as
 * botframework-connector's `ChannelValidation.authenticateChannelTokenWithServiceUrl` does:
 * exactly `Bearer <token>`; RS256/384/512 signed by the key its `kid` names in the issuer's JWKS
 * (from its OpenID metadata); `iss` the Bot Framework; `aud` exactly our app id; not expired, not
 * before `nbf` (5 minutes' skew either way); a `serviceurl` claim. Stricter than the SDK in one
 * respect: a token without `exp` is refused (the SDK's jsonwebtoken lets it live forever; the
 * Connector always sends one).
 *
 * @throws AppError 401 `invalid_token` for a missing or invalid token; 503 when the keys cannot be read.
 */
export async function verifyTeamsToken(request: InboundRequest, options: TeamsTokenOptions): Promise<TeamsToken> {
  const header = headerValue(request.headers, 'authorization');
  // The SDK splits on one space and wants two parts, the first exactly `Bearer`.
  const match = header ? /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)$/.exec(header) : null;
  if (!match) throw unauthorized('Missing or malformed Authorization: Bearer token.', 'invalid_token');
  const token = match[1]!;
  let kid: string | undefined;
  try {
    ({ kid } = decodeProtectedHeader(token));
  } catch {
    throw unauthorized('Invalid Bot Framework token.', 'invalid_token');
  }
  // The SDK looks the key up by `kid` only; jose would otherwise pick a lone key for a token that names none.
  if (typeof kid !== 'string') throw unauthorized('Invalid Bot Framework token.', 'invalid_token');
  const keys = await signingKeys(options.openIdMetadataUrl);
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keys, {
      issuer: BOT_FRAMEWORK_ISSUER,
      algorithms: ALGORITHMS,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      currentDate: new Date(request.now),
      requiredClaims: ['exp'],
    }));
  } catch (err) {
    throw tokenRefusal(err);
  }
  // Exactly our app id: the SDK's credential provider compares `aud` as a string, so an array is refused.
  if (payload.aud !== options.appId) throw unauthorized('Invalid Bot Framework token.', 'invalid_token');
  const serviceUrl = payload[SERVICE_URL_CLAIM];
  if (typeof serviceUrl !== 'string' || serviceUrl === '') {
    throw unauthorized('The token has no serviceurl claim.', 'invalid_token');
  }
  const jwk = endorsedKeySchema.safeParse(keys.jwks()?.keys.find((key) => key.kid === kid));
  return { serviceUrl, endorsements: jwk.success ? jwk.data.endorsements : [] };
}

/**
 * Whether a key endorsed for `endorsements` may sign for an activity of `channelId`, as
 * botframework-connector's `EndorsementsValidator.validate`: a key that lists no endorsements
 * signs for any channel; one that does, only for those (an activity naming a blank channel asserts none).
 */
export function endorses(endorsements: readonly unknown[], channelId: unknown): boolean {
  if (endorsements.length === 0) return true;
  if (typeof channelId !== 'string') return false;
  return channelId.trim() === '' || endorsements.includes(channelId);
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
