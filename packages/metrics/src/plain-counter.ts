import { type LabelValues, PlainMetric, type Sample, type Scrape } from './scraped-metric.js';

/** One series of a counter, bound to its labels once: `inc` adds to a number, nothing else. */
export class CounterSeries {
  value = 0;
  constructor(readonly labels: Record<string, string | number>) {}

  inc(by = 1): void {
    // prom-client's checks, kept as they are (NaN passes them there too).
    if (by && !Number.isFinite(by)) throw new TypeError(`Value is not a valid number: ${by}`);
    if (by < 0) throw new Error('It is not possible to decrease a counter');
    this.value += by;
  }
}

/**
 * A Prometheus counter kept as plain numbers, one per series, and handed to prom-client's
 * registry at scrape time: the same `/metrics` text as prom-client's Counter, without its
 * per-update label hashing and validation. Callers on a hot path bind a series once
 * (`labels()`) and call its `inc`; `inc(labels)` looks the series up by its label values.
 */
export class PlainCounter<L extends string> extends PlainMetric<L, CounterSeries> {
  readonly type = 'counter' as const;

  inc(labels: LabelValues<L>, by = 1): void {
    this.labels(labels).inc(by);
  }

  async get(): Promise<Scrape> {
    const values: Sample[] = [];
    for (const { labels, value } of this.series.values()) values.push({ labels: { ...labels }, value });
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** Back to zero; bound series stay valid. */
  reset(): void {
    for (const series of this.series.values()) series.value = 0;
  }

  protected newSeries(labels: Record<string, string | number>): CounterSeries {
    return new CounterSeries(labels);
  }
}
