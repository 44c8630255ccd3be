import { DEPRECATED_API_KEY_KEYS } from './schema.js';

/**
 * One line per deprecated key a config file still writes, naming the key and what replaces it:
 * `apiKeys[].tokensPerDay` and `apiKeys[].costPerMonth`, which the schema maps onto the key's
 * `budget` (the object hooks take). Read from the file's values as written, before the schema
 * maps them away.
 */
export function deprecatedKeyWarnings(raw: unknown): string[] {
  const apiKeys = raw && typeof raw === 'object' && 'apiKeys' in raw ? raw.apiKeys : undefined;
  if (!Array.isArray(apiKeys)) return [];
  return apiKeys.flatMap((entry: unknown, i) =>
    entry && typeof entry === 'object'
      ? DEPRECATED_API_KEY_KEYS.filter((old) => old in entry).map(
          (old) => `apiKeys[${i}].${old} is deprecated: write apiKeys[${i}].budget.${old} (the budget object hooks take)`,
        )
      : [],
  );
}
