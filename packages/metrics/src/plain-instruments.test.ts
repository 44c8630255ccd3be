import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { Metrics } from './metrics.js';
import { PlainCounter } from './plain-counter.js';
import { PlainHistogram } from './plain-histogram.js';

const LATENCY = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** Observations that reach every line: on a bound, between, past the last, zero, and a sum that rounds. */
const VALUES = [0, 0.005, 0.0051, 0.1 + 0.2, 0.3, 1, 119.99, 120, 120.5, 1e6, 0.0007];

/** The same calls on prom-client's instruments (the oracle) and on ours, in two registries. */
function pair() {
  const theirs = new Registry();
  const ours = new Registry();
  const counter = {
    name: 'test_requests_total',
    help: 'Help with \\ and a\nnewline',
    labelNames: ['route', 'status', 'model'] as const,
  };
  const histogram = { name: 'test_duration_seconds', help: 'Seconds', labelNames: ['route', 'model'] as const, buckets: LATENCY };
  return {
    theirs,
    ours,
    counters: [new Counter({ ...counter, registers: [theirs] }), new PlainCounter({ ...counter, registers: [ours] })] as const,
    histograms: [
      new Histogram({ ...histogram, registers: [theirs] }),
      new PlainHistogram({ ...histogram, registers: [ours] }),
    ] as const,
  };
}

describe('plain counters and histograms', () => {
  it('write the /metrics text prom-client’s own Counter and Histogram write for the same observations', async () => {
    const { theirs, ours, counters, histograms } = pair();
    for (const counter of counters) {
      const bound = counter.labels({ route: '/v1/chat/completions', model: 'mock/gpt-4o-mini', status: 200 });
      bound.inc();
      bound.inc(2.5);
      // A number and its string are one series, shown in the order of the first call's labels.
      counter.inc({ route: '/v1/chat/completions', model: 'mock/gpt-4o-mini', status: '200' });
      counter.inc({ status: 404, route: '/v1/embeddings', model: 'quote " backslash \\ newline \n' }, 3);
      counter.inc({ route: '/v1/x', model: 'm', status: 500 }, 0);
    }
    for (const histogram of histograms) {
      const bound = histogram.labels({ route: '/v1/chat/completions', model: 'mock/gpt-4o-mini' });
      for (const value of VALUES) bound.observe(value);
      histogram.observe({ model: 'claude/sonnet', route: '/v1/chat/completions' }, 0.02);
    }
    const text = await ours.metrics();
    expect(text).toBe(await theirs.metrics());
    expect(text).toContain('test_duration_seconds_bucket{le="+Inf",route="/v1/chat/completions",model="mock/gpt-4o-mini"} 11');
  });

  it('write only HELP and TYPE before anything is observed, as prom-client does', async () => {
    const { theirs, ours } = pair();
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });

  it('go back to zero on reset, series bound before it still counting', async () => {
    const { theirs, ours, counters, histograms } = pair();
    const bound = counters.map((counter) => counter.labels({ route: '/v1/x', status: 200, model: 'm' }));
    const boundHistograms = histograms.map((histogram) => histogram.labels({ route: '/v1/x', model: 'm' }));
    for (const series of bound) series.inc(5);
    for (const series of boundHistograms) series.observe(0.3);
    for (const metric of [...counters, ...histograms]) metric.reset();
    // prom-client forgets its series on reset; ours keep them at zero, so compare after new counts.
    for (const counter of counters) counter.inc({ route: '/v1/x', status: 200, model: 'm' }, 2);
    for (const histogram of histograms) histogram.observe({ route: '/v1/x', model: 'm' }, 0.04);
    expect(await ours.metrics()).toBe(await theirs.metrics());
    bound[1]!.inc();
    expect(await ours.getSingleMetricAsString('test_requests_total')).toContain(
      'test_requests_total{route="/v1/x",status="200",model="m"} 3',
    );
  });

  it('refuse what prom-client refuses: a counter going down, a value that is not a number, an undeclared label', () => {
    const { counters, histograms } = pair();
    for (const counter of counters) {
      expect(() => counter.inc({ route: 'r', status: 200, model: 'm' }, -1)).toThrow(/decrease/);
      expect(() => counter.inc({ route: 'r', status: 200, model: 'm' }, Number.POSITIVE_INFINITY)).toThrow(TypeError);
      expect(() => counter.inc({ route: 'r', nope: 'x' } as never)).toThrow(/nope/);
    }
    for (const histogram of histograms) {
      expect(() => histogram.observe({ route: 'r', model: 'm' }, Number.NaN)).toThrow(TypeError);
      expect(() => histogram.observe({ route: 'r', nope: 'x' } as never, 1)).toThrow(/nope/);
    }
  });

  it('serve every Switchboard metric as prom-client would with the same name, help, labels and buckets', async () => {
    const metrics = new Metrics('api');
    const oracle = new Registry();
    const instruments = Object.values(metrics).filter(
      (value) => value instanceof PlainCounter || value instanceof PlainHistogram,
    );
    expect(instruments.length).toBe(14);
    for (const [i, ours] of instruments.entries()) {
      const config = { name: ours.name, help: ours.help, labelNames: ours.labelNames, registers: [oracle] };
      const theirs =
        ours instanceof PlainHistogram ? new Histogram({ ...config, buckets: [...ours.buckets] }) : new Counter(config);
      const labels = Object.fromEntries(ours.labelNames.map((name) => [name, `${name}-${i}`]));
      for (const value of VALUES) {
        if (ours instanceof PlainHistogram) {
          ours.observe(labels, value);
          (theirs as Histogram).observe(labels, value);
        } else {
          ours.inc(labels, value);
          (theirs as Counter).inc(labels, value);
        }
      }
      expect(await metrics.registry.getSingleMetricAsString(ours.name)).toBe(await oracle.getSingleMetricAsString(ours.name));
    }
  });
});
