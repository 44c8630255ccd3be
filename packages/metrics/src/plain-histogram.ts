import { type LabelValues, PlainMetric, type PlainMetricOptions, type Sample, type Scrape } from './scraped-metric.js';

/**
 * One series of a histogram, bound to its labels once: a count per bucket (not cumulative; the
 * scrape sums them), the sum and the count.
 */
export class HistogramSeries {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Record<string, string | number>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    // The first bound at or above the value, from the smallest: latencies sit in the first few.
    const { bounds } = this;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    if (i < bounds.length) this.counts[i]! += 1;
    this.sum += value;
    this.count += 1;
  }
}

/**
 * A Prometheus histogram kept as plain numbers per series and handed to prom-client's registry
 * at scrape time, as `PlainCounter` is: the same `_bucket` (cumulative, then `+Inf`), `_sum` and
 * `_count` lines as prom-client's Histogram with these buckets.
 */
export class PlainHistogram<L extends string> extends PlainMetric<L, HistogramSeries> {
  readonly type = 'histogram' as const;
  /** Upper bounds, in the order given, as prom-client takes them. */
  readonly buckets: readonly number[];

  constructor(options: PlainMetricOptions<L> & { buckets: readonly number[] }) {
    super(options);
    this.buckets = [...options.buckets];
  }

  observe(labels: LabelValues<L>, value: number): void {
    this.labels(labels).observe(value);
  }

  async get(): Promise<Scrape> {
    const bucket = `${this.name}_bucket`;
    const values: Sample[] = [];
    for (const { labels, counts, sum, count } of this.series.values()) {
      let cumulative = 0;
      for (let i = 0; i < this.buckets.length; i++) {
        cumulative += counts[i]!;
        values.push({ labels: { le: this.buckets[i]!, ...labels }, value: cumulative, metricName: bucket });
      }
      values.push(
        { labels: { le: '+Inf', ...labels }, value: count, metricName: bucket },
        { labels: { ...labels }, value: sum, metricName: `${this.name}_sum` },
        { labels: { ...labels }, value: count, metricName: `${this.name}_count` },
      );
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** Back to zero; bound series stay valid. */
  reset(): void {
    for (const series of this.series.values()) {
      series.counts.fill(0);
      series.sum = 0;
      series.count = 0;
    }
  }

  protected newSeries(labels: Record<string, string | number>): HistogramSeries {
    return new HistogramSeries(labels, this.buckets);
  }
}
