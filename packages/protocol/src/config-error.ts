/**
 * A configuration that cannot run, with the path of the offending key first
 * (`providers.p.baseUrl: Invalid URL`, `defaultModel: …`). The entry points print it as one
 * line and exit 78 (EX_CONFIG), wherever it was found: reading the file or building what it names.
 */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** EX_CONFIG from sysexits.h: the exit code of every configuration error. */
export const EXIT_CONFIG = 78;
