// Markdown tables and the two goals, from the measured rows.

/**
 * @typedef {object} Row
 * @property {{ id: string, label: string, stream: boolean, connections: number }} scenario
 * @property {Record<string, import('./load.mjs').Result>} results by target: direct, bare, gateway, gateway×N
 *   (all rounds pooled)
 * @property {Record<string, import('./load.mjs').Result[]>} [rounds] by target, one result per round
 *   (the goals read them round by round)
 */

// The goals are against the Koa floor (bench/koa-floor.mjs: the bare proxy's work under Koa,
// @koa/router and koa-body), the framework apps/api is built on: what lies between it and the
// gateway is Switchboard's own code. The bare proxy's ratios are printed beside them as info.
/** One API process at 32 connections (non-streaming) must reach this share of the Koa floor's req/s. */
export const MIN_FLOOR_RATIO = 0.75;
/** Streaming at 8 connections: this share of the Koa floor's chunks/s. */
export const MIN_STREAM_FLOOR_RATIO = 0.8;
/** At 1 connection the gateway may add at most this multiple of what the Koa floor adds to p50. */
export const MAX_ADDED_P50_MULTIPLE = 1.5;
/** With 1,000 slow streams at once, the gateway may add at most this to direct's TTFB p99 (ms). */
export const MAX_SLOW_TTFB_ADDED_MS = 1000;
const ms = (value) => (Number.isFinite(value) ? value.toFixed(2) : 'n/a');
/** The median (the mean of the middle two for an even count). */
export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const signedMs = (value) => (Number.isFinite(value) ? `${value >= 0 ? '+' : ''}${value.toFixed(2)}` : 'n/a');
const rps = (value) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : 'n/a');

/** A markdown table whose columns are padded, so it reads in a terminal and pastes into a note. */
export function markdownTable(header, rows, align) {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
  const line = (cells) =>
    `| ${cells.map((cell, i) => (align[i] === 'r' ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (align[i] === 'r' ? `${'-'.repeat(w + 1)}:` : `:${'-'.repeat(w + 1)}`)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

/** Rows flagged with errors say so in their first cell, so a pasted table cannot hide them. */
function label(row) {
  const errors = Object.values(row.results).reduce((sum, result) => sum + result.errors, 0);
  return errors ? `${row.scenario.label} ⚠ ${errors} errors` : row.scenario.label;
}

const ratio = (a, b) => (Number.isFinite(a / b) ? (a / b).toFixed(2) : 'n/a');
const multi = (rows) => Object.keys(rows[0]?.results ?? {}).filter((name) => name.startsWith('gateway×'));

/** Every scenario with each target's req/s, the gateway's ratio to the bare proxy, and what each adds to p50. */
export function floorTable(rows) {
  const many = multi(rows);
  return markdownTable(
    [
      'scenario',
      'direct rps',
      'bare rps',
      'gateway rps',
      'gw/bare',
      'koa rps',
      'gw/koa',
      'bare +p50',
      'koa +p50',
      'gw +p50',
      'gw+/bare+',
      'gw p99',
      ...many.flatMap((name) => [`${name} rps`, `${name}/gw`]),
      'errors',
    ],
    rows.map((row) => {
      const { direct, bare, koa, gateway } = row.results;
      const bareAdded = bare.latency.p50 - direct.latency.p50;
      const gwAdded = gateway.latency.p50 - direct.latency.p50;
      return [
        label(row),
        rps(direct.rps),
        rps(bare.rps),
        rps(gateway.rps),
        ratio(gateway.rps, bare.rps),
        rps(koa?.rps),
        ratio(gateway.rps, koa?.rps),
        signedMs(bareAdded),
        signedMs(koa?.latency.p50 - direct.latency.p50),
        signedMs(gwAdded),
        ratio(gwAdded, bareAdded),
        ms(gateway.latency.p99),
        ...many.flatMap((name) => [rps(row.results[name].rps), ratio(row.results[name].rps, gateway.rps)]),
        Object.values(row.results)
          .map((result) => result.errors)
          .join('/'),
      ];
    }),
    ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', ...many.flatMap(() => ['r', 'r']), 'r'],
  );
}

export function ttfbTable(rows) {
  const streaming = rows.filter((row) => row.scenario.stream);
  if (!streaming.length) return '';
  const names = Object.keys(streaming[0].results);
  return markdownTable(
    ['scenario', ...names.flatMap((name) => [`${name} p50`, `${name} p99`])],
    streaming.map((row) => [
      label(row),
      ...names.flatMap((name) => [ms(row.results[name].ttfb?.p50), ms(row.results[name].ttfb?.p99)]),
    ]),
    ['l', ...names.flatMap(() => ['r', 'r'])],
  );
}

/** A goal measured on a row with errors is VOID: failed requests are fast and would flatter it. */
function verdictOf(row, met) {
  if (Object.values(row.results).some((result) => result.errors > 0)) return 'VOID';
  return met ? 'PASS' : 'FAIL';
}

/**
 * One figure per round of a row: `figure(results, i)` with each target's result of round `i`
 * (`row.rounds`, one entry per round in which the scenario ran), or, for a row measured once,
 * of the pooled results.
 */
function perRound(row, figure) {
  const names = Object.keys(row.rounds ?? {});
  const count = Math.min(...names.map((name) => row.rounds[name].length));
  if (!names.length || !Number.isFinite(count) || count < 1) return [figure(row.results)];
  return Array.from({ length: count }, (_, i) => figure(Object.fromEntries(names.map((name) => [name, row.rounds[name][i]]))));
}

/** a ÷ b where b may be 0 or below (a one-connection p50 added by the Koa floor, in a noisy round). */
const addedRatio = (a, b) => (b > 0 ? a / b : a > 0 ? Number.POSITIVE_INFINITY : 0);

/**
 * A goal read from paired rounds: the gateway and the Koa floor ran back to back in each round
 * (which went first alternates), so a swing of the machine between rounds hits both; the goal is
 * the median of the rounds' ratios, every round printed beside it so the spread shows, and the
 * pooled figure (all rounds' requests together, as in the table) after them.
 */
function pairedReading(row, figure, format) {
  const rounds = perRound(row, figure);
  const value = median(rounds);
  const pooled = figure(row.results);
  const text =
    rounds.length > 1
      ? `${format(value)}, the median of ${rounds.length} paired rounds (${rounds.map(format).join(', ')}); pooled ${format(pooled)}`
      : `${format(value)} (one round)`;
  return { value, pooled, text };
}

/**
 * The gateway's CPU µs per request ÷ the Koa floor's, the median of the paired rounds: steadier
 * than req/s when other processes share the cores (a server's CPU per request moves less with
 * how much of a core it got). Empty where /proc could not be read.
 */
function cpuLine(row) {
  const cpu = (results) =>
    (results.gateway.cpuUsPerRequest?.gateway ?? Number.NaN) / (results.koa.cpuUsPerRequest?.gateway ?? Number.NaN);
  const reading = pairedReading(row, cpu, (value) => ratio(value, 1));
  if (!Number.isFinite(reading.value)) return [];
  const us = (name) => Math.round(row.results[name].cpuUsPerRequest?.gateway ?? Number.NaN);
  return [`      CPU µs per request, gateway ÷ Koa floor: ${reading.text} (${us('gateway')} vs ${us('koa')} µs pooled)`];
}

/**
 * The goals against the Koa floor, each PASS, FAIL, VOID (errors) or n/a (scenario filtered out).
 * Throughput and latency are read from paired rounds (`pairedReading`); the slow streams from the
 * median of each round's gateway − direct TTFB p99.
 */
export function floorGoals(rows) {
  const find = (id) => rows.find((row) => row.scenario.id === id);
  const lines = [];
  const times = (value) => `${ratio(value, 1)} ×`;
  const wide = find('json-32');
  if (wide) {
    const { bare, koa, gateway } = wide.results;
    const reading = pairedReading(wide, (results) => results.gateway.rps / results.koa.rps, times);
    lines.push(
      `${verdictOf(wide, reading.value >= MIN_FLOOR_RATIO)}  throughput: gateway ≥ ${MIN_FLOOR_RATIO} × the Koa floor at 32 connections (non-streaming): ` +
        `${reading.text} (${rps(gateway.rps)} vs ${rps(koa.rps)} req/s; ${ratio(gateway.rps, bare.rps)} × the bare proxy)`,
      ...cpuLine(wide),
    );
  } else lines.push('n/a   throughput goal: scenario json-32 not measured');
  const single = find('json-1');
  if (single) {
    const { direct, koa, gateway } = single.results;
    const added = (results) => ({
      koa: results.koa.latency.p50 - results.direct.latency.p50,
      gateway: results.gateway.latency.p50 - results.direct.latency.p50,
    });
    const reading = pairedReading(single, (results) => addedRatio(added(results).gateway, added(results).koa), times);
    lines.push(
      `${verdictOf(single, reading.value <= MAX_ADDED_P50_MULTIPLE)}  latency: gateway adds ≤ ${MAX_ADDED_P50_MULTIPLE} × what the Koa floor adds to p50 at 1 connection: ` +
        `${reading.text} (${signedMs(gateway.latency.p50 - direct.latency.p50)} vs ${signedMs(koa.latency.p50 - direct.latency.p50)} ms)`,
      ...cpuLine(single),
    );
  } else lines.push('n/a   latency goal: scenario json-1 not measured');
  const streams = find('sse-8');
  if (streams) {
    const { bare, gateway } = streams.results;
    const reading = pairedReading(streams, (results) => results.gateway.rps / results.koa.rps, times);
    lines.push(
      `${verdictOf(streams, reading.value >= MIN_STREAM_FLOOR_RATIO)}  streaming: gateway ≥ ${MIN_STREAM_FLOOR_RATIO} × the Koa floor's chunks/s at 8 connections: ` +
        `${reading.text} (${ratio(gateway.rps, bare.rps)} × the bare proxy)`,
      ...cpuLine(streams),
    );
  } else lines.push('n/a   streaming goal: scenario sse-8 not measured');
  const slow = find('sse-1000-slow');
  if (slow) {
    const { direct, gateway } = slow.results;
    const pooled = (gateway.ttfb?.p99 ?? Number.NaN) - (direct.ttfb?.p99 ?? Number.NaN);
    const detail = `(${ms(gateway.ttfb?.p99)} vs ${ms(direct.ttfb?.p99)} ms)`;
    // One burst's p99 is its 10th-slowest stream: a swing of the machine's load moves it by a
    // second. Over several rounds the goal reads the median of each round's gateway − direct.
    const rounds = perRound(
      slow,
      (results) => (results.gateway.ttfb?.p99 ?? Number.NaN) - (results.direct.ttfb?.p99 ?? Number.NaN),
    );
    const added = median(rounds);
    const how =
      rounds.length > 1
        ? `${signedMs(added)} ms, the median of ${rounds.length} rounds (${rounds.map((value) => signedMs(value)).join(', ')}; pooled ${signedMs(pooled)} ms ${detail})`
        : `${signedMs(added)} ms ${detail}`;
    lines.push(
      `${verdictOf(slow, added <= MAX_SLOW_TTFB_ADDED_MS)}  slow streams: gateway adds ≤ ${MAX_SLOW_TTFB_ADDED_MS} ms to direct's TTFB p99 with 1,000 at once: ${how}`,
    );
  }
  for (const name of multi(rows)) {
    const row = wide ?? rows[0];
    lines.push(
      `info  ${name} vs one process (${row.scenario.id}): ${ratio(row.results[name].rps, row.results.gateway.rps)} × the req/s`,
    );
  }
  return lines.join('\n');
}

/**
 * Where the CPU went per request, per target: the server's own µs per request (all its processes),
 * its share of the cores, and "other": anything else on the machine in that window (a noisy row).
 */
export function cpuTable(rows) {
  const names = Object.keys(rows[0]?.results ?? {}).filter((name) => name !== 'direct');
  const measured = rows.filter((row) => names.every((name) => row.results[name].cpuUsPerRequest));
  if (!measured.length) return '';
  const us = (value) => (Number.isFinite(value) ? Math.round(value).toString() : 'n/a');
  return markdownTable(
    ['scenario', ...names.flatMap((name) => [`${name} µs/req`, `${name} cores`]), 'other cores'],
    measured.map((row) => [
      label(row),
      ...names.flatMap((name) => [us(row.results[name].cpuUsPerRequest.gateway), row.results[name].cpuShare.gateway.toFixed(2)]),
      Math.max(0, ...names.map((name) => row.results[name].cpuShare.other)).toFixed(2),
    ]),
    ['l', ...names.flatMap(() => ['r', 'r']), 'r'],
  );
}

/**
 * The soak: RSS every 10 s. Under load it saws up and down with garbage collection, so "flat"
 * compares levels, not single samples: the median of the first two minutes after a minute's
 * warm-up against the median of the last two; PASS within ±10 %.
 */
export function soakTable(samples) {
  const warm = samples.filter((sample) => sample.atSeconds >= 60);
  const median = (list) => {
    const sorted = list.map((sample) => sample.rssMiB).sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
  };
  const window = Math.min(12, Math.floor(warm.length / 2));
  const first = median(warm.slice(0, window));
  const last = median(warm.slice(-window));
  const change = (last - first) / first;
  const rss = warm.map((sample) => sample.rssMiB);
  const table = markdownTable(
    ['at (s)', 'RSS (MiB)', 'req/s', 'errors'],
    samples.map((sample) => [String(sample.atSeconds), sample.rssMiB.toFixed(1), rps(sample.rps), String(sample.errors)]),
    ['r', 'r', 'r', 'r'],
  );
  const verdict = Number.isFinite(change) && window > 0 ? (Math.abs(change) <= 0.1 ? 'PASS' : 'FAIL') : 'n/a ';
  return (
    `${table}\n\n${verdict}  RSS flat (±10 %) after 60 s of warm-up: median of the first ${window * 10} s ${first.toFixed(1)} MiB, ` +
    `of the last ${window * 10} s ${last.toFixed(1)} MiB (${change >= 0 ? '+' : ''}${(change * 100).toFixed(1)} %); ` +
    `range ${Math.min(...rss).toFixed(1)}–${Math.max(...rss).toFixed(1)} MiB`
  );
}
