/** One row of the configuration reference: the keys it covers and what a reader needs to know. */
export interface KeyDoc {
  /** Paths as the schema spells them: `limits.maxBodyBytes`, `providers.<name>.apiKey`, `apiKeys[].name`. */
  keys: readonly string[];
  /** Markdown; a default the schema holds must appear in it (a test checks). */
  default: string;
  /** Markdown, links relative to docs/configuration.md. */
  meaning: string;
}
