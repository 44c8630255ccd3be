export const REDACTED = '[redacted]';

/**
 * `text` with every occurrence of each secret cut out. The one scrubber the logger, the upstream
 * errors and the channel errors share; callers that scrub often pass their secrets longest
 * first, so a secret that contains another is cut whole.
 */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret && out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out;
}
