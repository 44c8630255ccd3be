// Markdown tables and the two goals, from the measured rows.

/**
 * @typedef {object} Row
 * @property {{ id: string, label: string, stream: boolean, connections: number }} scenario
 * @property {Record<string, import('./load.mjs').Result>} results by target: direct, bare, gateway, gateway×N
 */

/** One API process at 32 connections (non-streaming) must reach this share of the bare proxy's req/s. */
export const MIN_FLOOR_RATIO = 0.8;
/** Streaming at 8 connections: this share of the bare proxy's chunks/s. */
export const MIN_STREAM_FLOOR_RATIO = 0.8;
/** At 1 connection the gateway may add at most this multiple of what the bare proxy adds to p50. */
export const MAX_ADDED_P50_MULTIPLE = 1.5;
/** With 1,000 slow streams at once, gateway TTFB p99 may be at most this multiple of direct. */
export const MAX_SLOW_TTFB_RATIO = 1.5;

const ms = (value) => (Number.isFinite(value) ? value.toFixed(2) : 'n/a');
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

/** The goals against the bare-proxy floor, each PASS, FAIL, VOID (errors) or n/a (scenario filtered out). */
export function floorGoals(rows) {
  const find = (id) => rows.find((row) => row.scenario.id === id);
  const lines = [];
  const wide = find('json-32');
  if (wide) {
    const { bare, gateway } = wide.results;
    const r = gateway.rps / bare.rps;
    lines.push(
      `${verdictOf(wide, r >= MIN_FLOOR_RATIO)}  throughput: gateway ≥ ${MIN_FLOOR_RATIO} × bare proxy at 32 connections (non-streaming): ` +
        `${r.toFixed(2)} × (${rps(gateway.rps)} vs ${rps(bare.rps)} req/s)`,
    );
  } else lines.push('n/a   throughput goal: scenario json-32 not measured');
  const single = find('json-1');
  if (single) {
    const { direct, bare, gateway } = single.results;
    const bareAdded = bare.latency.p50 - direct.latency.p50;
    const gwAdded = gateway.latency.p50 - direct.latency.p50;
    lines.push(
      `${verdictOf(single, gwAdded <= MAX_ADDED_P50_MULTIPLE * bareAdded)}  latency: gateway adds ≤ ${MAX_ADDED_P50_MULTIPLE} × what the bare proxy adds to p50 at 1 connection: ` +
        `${signedMs(gwAdded)} vs ${signedMs(bareAdded)} ms (${ratio(gwAdded, bareAdded)} ×)`,
    );
  } else lines.push('n/a   latency goal: scenario json-1 not measured');
  const streams = find('sse-8');
  if (streams) {
    const { bare, gateway } = streams.results;
    const r = gateway.rps / bare.rps;
    lines.push(
      `${verdictOf(streams, r >= MIN_STREAM_FLOOR_RATIO)}  streaming: gateway ≥ ${MIN_STREAM_FLOOR_RATIO} × bare proxy chunks/s at 8 connections: ${r.toFixed(2)} ×`,
    );
  } else lines.push('n/a   streaming goal: scenario sse-8 not measured');
  const slow = find('sse-1000-slow');
  if (slow) {
    const { direct, gateway } = slow.results;
    const r = (gateway.ttfb?.p99 ?? Number.NaN) / (direct.ttfb?.p99 ?? Number.NaN);
    lines.push(
      `${verdictOf(slow, r <= MAX_SLOW_TTFB_RATIO)}  slow streams: gateway TTFB p99 ≤ ${MAX_SLOW_TTFB_RATIO.toFixed(1)} × direct with 1,000 at once: ` +
        `${r.toFixed(2)} × (${ms(gateway.ttfb?.p99)} vs ${ms(direct.ttfb?.p99)} ms)`,
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
