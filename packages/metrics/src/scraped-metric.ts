import type { Metric, Registry } from 'prom-client';

/** A label set as prom-client takes it: `{ route: '/v1/…', status: 200 }`. */
export type LabelValues<L extends string> = Partial<Record<L, string | number>>;

/** One sample of a scrape, in the shape prom-client's own metrics give their registry (`get()`). */
export interface Sample {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}

/** A metric's samples as one scrape reads them. */
export interface Scrape {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  values: Sample[];
}

/** What a prom-client registry reads of a metric at scrape time (registry.js: name, help, type, `get()`). */
export interface ScrapedMetric {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'histogram';
  /** How a cluster's processes are merged, were they ever (prom-client's default). */
  readonly aggregator: 'sum';
  get(): Promise<Scrape>;
  reset(): void;
}

/**
 * Adds one of ours to a prom-client registry. The registry's type names prom-client's own
 * classes, but it reads only what `ScrapedMetric` has; the exposition test holds the text equal
 * to what prom-client's Counter and Histogram write (plain-instruments.test.ts).
 */
function registerScraped(registry: Registry, metric: ScrapedMetric): void {
  registry.registerMetric(metric as unknown as Metric);
}

/** The key of a label set: its values in the metric's label order (JSON, so no two sets share one). */
function seriesKey<L extends string>(labelNames: readonly L[], labels: LabelValues<L>): string {
  // As prom-client's hash: status 200 and "200" are one series (they print alike).
  return JSON.stringify(labelNames.map((name) => (labels[name] === undefined ? null : String(labels[name]))));
}

/** prom-client's check, kept: a label the metric does not declare is a bug, not a new series. */
function checkLabelNames(metric: string, labelNames: readonly string[], labels: object): void {
  for (const name of Object.keys(labels)) {
    if (!labelNames.includes(name)) throw new Error(`Added label "${name}" is not included in initial labelset of ${metric}`);
  }
}

/** What a plain counter or histogram is made with (prom-client's names for them). */
export interface PlainMetricOptions<L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
  registers: Registry[];
}

/**
 * What `PlainCounter` and `PlainHistogram` share: their series, one per label set, each made on
 * first use and kept (callers on a hot path bind one with `labels()` and hold it), and their
 * place in the registries given.
 */
export abstract class PlainMetric<L extends string, S> implements ScrapedMetric {
  abstract readonly type: 'counter' | 'histogram';
  readonly aggregator = 'sum' as const;
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly L[];
  /** In the order first used, as prom-client shows them. */
  protected readonly series = new Map<string, S>();

  constructor(options: PlainMetricOptions<L>) {
    this.name = options.name;
    this.help = options.help;
    this.labelNames = options.labelNames;
    for (const registry of options.registers) registerScraped(registry, this);
  }

  /** The series of these labels, made on first use; its labels are shown in the order given here. */
  labels(labels: LabelValues<L>): S {
    const key = seriesKey(this.labelNames, labels);
    let found = this.series.get(key);
    if (!found) {
      checkLabelNames(this.name, this.labelNames, labels);
      found = this.newSeries({ ...labels } as Record<string, string | number>);
      this.series.set(key, found);
    }
    return found;
  }

  protected abstract newSeries(labels: Record<string, string | number>): S;
  abstract get(): Promise<Scrape>;
  abstract reset(): void;
}
