/**
 * The layout of a day's usage hash, written by the ledger and read by the report: a field is
 * `<key>|<model>|<hook>|<metric>` (parts URI-encoded, so a `|` in a name stays intact), and the
 * metric one of these letters.
 */
export const METRICS = { requests: 'r', promptTokens: 'p', completionTokens: 'c', cost: '$', unpriced: 'u' } as const;

export type Metric = keyof typeof METRICS;

/** A usage hash field is `<key>|<model>|<hook>|<metric>`; this is the part before the metric. */
export const fieldPrefix = (entry: { key: string; model: string; hook: string }) =>
  `${encodeURIComponent(entry.key)}|${encodeURIComponent(entry.model)}|${encodeURIComponent(entry.hook)}|`;

/** A field read back: the part before the metric, its names decoded, and the metric (undefined: not one of ours). */
export function parseField(name: string): { base: string; key: string; model: string; hook: string; metric: Metric | undefined } {
  const cut = name.lastIndexOf('|');
  const base = name.slice(0, cut);
  const [key = '', model = '', hook = ''] = base.split('|').map(decodeURIComponent);
  const letter = name.slice(cut + 1);
  const metric = (Object.keys(METRICS) as Metric[]).find((m) => METRICS[m] === letter);
  return { base, key, model, hook, metric };
}
