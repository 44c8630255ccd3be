import { REDACTED, scrubSecrets } from '@switchboard/protocol';

/**
 * Scrubs secrets from a log record: keys that name credentials are replaced whole, and any
 * configured secret value found inside a string is cut out, wherever it appears.
 */
const SECRET_KEY =
  /^(authorization|x-api-key|api[-_]?key|apikey|token|secret|password|signing[-_]?secret|bot[-_]?token|x-hook-token|cookie)$/i;

const BEARER = /Bearer\s/i;

export function createRedactor(secrets: readonly string[]) {
  const values = secrets.filter((s) => s.length >= 4).sort((a, b) => b.length - a.length);

  const scrubString = (text: string): string => {
    const out = scrubSecrets(text, values);
    // Bearer credentials that were not configured (a client's wrong key) are cut out too.
    return BEARER.test(out) ? out.replace(/(Bearer\s+)[^\s"',]+/gi, `$1${REDACTED}`) : out;
  };

  const scrub = (value: unknown, depth = 0): unknown => {
    if (typeof value === 'string') return scrubString(value);
    if (depth > 6 || value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map((item) => scrub(item, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      out[key] = SECRET_KEY.test(key) ? REDACTED : scrub(item, depth + 1);
    }
    return out;
  };

  return { scrub, scrubString };
}
