import { AppError } from '@switchboard/protocol';
import { createRemoteJWKSet } from 'jose';
import { z } from 'zod';

/** How long an issuer's OpenID metadata is trusted before it is read again (its keys rotate within it on their own schedule). */
const METADATA_TTL_MS = 24 * 60 * 60 * 1000;
/** Every fetch of metadata or keys has this bound. */
const FETCH_TIMEOUT_MS = 5_000;
/** One entry per configured metadata URL; more than this means something is generating URLs. */
const MAX_ISSUERS = 32;

const metadataSchema = z.looseObject({ jwks_uri: z.url({ protocol: /^https?$/ }) });

/** jose's remote key set: a key getter for jwtVerify that also shows the JWKS it holds (for `endorsements`). */
export type SigningKeys = ReturnType<typeof createRemoteJWKSet>;

interface Issuer {
  keys: SigningKeys;
  expiresAt: number;
}

const issuers = new Map<string, Promise<Issuer>>();

/**
 * The signing keys of the issuer an OpenID metadata document names: the document is fetched once
 * a day per URL (one fetch in flight however many requests wait), and its JWKS is held by jose's
 * remote key set, which refetches at most every 30 s when a token names a key it does not know
 * (a rotation).
 *
 * @throws AppError 503 `signing_keys_unavailable` when the metadata cannot be read.
 */
export async function signingKeys(metadataUrl: string, now = Date.now()): Promise<SigningKeys> {
  const cached = issuers.get(metadataUrl);
  if (cached) {
    const issuer = await cached.catch(() => undefined);
    if (issuer && issuer.expiresAt > now) return issuer.keys;
    if (issuers.get(metadataUrl) === cached) issuers.delete(metadataUrl);
  }
  if (issuers.size >= MAX_ISSUERS) issuers.delete(issuers.keys().next().value!);
  const loading = loadIssuer(metadataUrl, now);
  issuers.set(metadataUrl, loading);
  try {
    return (await loading).keys;
  } catch (err) {
    // A failure is not cached: the next request tries again.
    if (issuers.get(metadataUrl) === loading) issuers.delete(metadataUrl);
    throw err;
  }
}

async function loadIssuer(metadataUrl: string, now: number): Promise<Issuer> {
  let json: unknown;
  try {
    const res = await fetch(metadataUrl, {
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      headers: { accept: 'application/json' },
    });
    if (!res.ok) throw new Error(`status ${res.status}`);
    json = await res.json();
  } catch (err) {
    throw unavailable(err);
  }
  const metadata = metadataSchema.safeParse(json);
  if (!metadata.success) throw unavailable(new Error('no jwks_uri'));
  const keys = createRemoteJWKSet(new URL(metadata.data.jwks_uri), { timeoutDuration: FETCH_TIMEOUT_MS });
  return { keys, expiresAt: now + METADATA_TTL_MS };
}

function unavailable(cause: unknown) {
  return new AppError("The Bot Framework's signing keys could not be read; try again shortly.", {
    status: 503,
    type: 'service_unavailable_error',
    code: 'signing_keys_unavailable',
    cause,
  });
}
