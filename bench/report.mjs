// Markdown tables and the two goals, from the measured rows.

/**
 * @typedef {object} Row
 * @property {{ id: string, label: string, stream: boolean, connections: number }} scenario
 * @property {import('./load.mjs').Result} direct
 * @property {import('./load.mjs').Result} gateway
 */

/** Gateway throughput at 32 connections must be at least this share of direct. */
export const MIN_THROUGHPUT_RATIO = 0.3;
/** Gateway p50 at 1 connection may exceed direct p50 by at most this many ms. */
export const MAX_ADDED_P50_MS = 0.3;
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
  const errors = row.direct.errors + row.gateway.errors;
  return errors ? `${row.scenario.label} ⚠ ${errors} errors` : row.scenario.label;
}

export function mainTable(rows) {
  return markdownTable(
    [
      'scenario',
      'direct rps',
      'gateway rps',
      'ratio',
      'direct p50',
      'gateway p50',
      'Δp50 (ms)',
      'direct p99',
      'gateway p99',
      'errors d/g',
    ],
    rows.map((row) => [
      label(row),
      rps(row.direct.rps),
      rps(row.gateway.rps),
      (row.gateway.rps / row.direct.rps).toFixed(2),
      ms(row.direct.latency.p50),
      ms(row.gateway.latency.p50),
      signedMs(row.gateway.latency.p50 - row.direct.latency.p50),
      ms(row.direct.latency.p99),
      ms(row.gateway.latency.p99),
      `${row.direct.errors}/${row.gateway.errors}`,
    ]),
    ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
  );
}

export function ttfbTable(rows) {
  const streaming = rows.filter((row) => row.scenario.stream);
  if (!streaming.length) return '';
  return markdownTable(
    ['scenario', 'direct TTFB p50', 'gateway TTFB p50', 'Δ TTFB p50 (ms)', 'direct TTFB p99', 'gateway TTFB p99'],
    streaming.map((row) => [
      label(row),
      ms(row.direct.ttfb?.p50),
      ms(row.gateway.ttfb?.p50),
      signedMs((row.gateway.ttfb?.p50 ?? Number.NaN) - (row.direct.ttfb?.p50 ?? Number.NaN)),
      ms(row.direct.ttfb?.p99),
      ms(row.gateway.ttfb?.p99),
    ]),
    ['l', 'r', 'r', 'r', 'r', 'r'],
  );
}

/** A goal measured on a row with errors is VOID: failed requests are fast and would flatter it. */
function verdictOf(row, met) {
  if (row.direct.errors + row.gateway.errors > 0) return 'VOID';
  return met ? 'PASS' : 'FAIL';
}

/** The two goals, each PASS, FAIL, VOID (errors) or n/a (when its scenario was filtered out). */
export function goals(rows) {
  const find = (id) => rows.find((row) => row.scenario.id === id);
  const lines = [];
  const wide = find('json-32');
  if (wide) {
    const ratio = wide.gateway.rps / wide.direct.rps;
    const verdict = verdictOf(wide, ratio >= MIN_THROUGHPUT_RATIO);
    lines.push(
      `${verdict}  throughput: gateway ≥ ${MIN_THROUGHPUT_RATIO.toFixed(2)} × direct at 32 connections (non-streaming): ` +
        `${ratio.toFixed(2)} × (${rps(wide.gateway.rps)} vs ${rps(wide.direct.rps)} req/s)`,
    );
  } else {
    lines.push('n/a   throughput goal: scenario json-32 not measured');
  }
  const single = find('json-1');
  if (single) {
    const added = single.gateway.latency.p50 - single.direct.latency.p50;
    const verdict = verdictOf(single, added <= MAX_ADDED_P50_MS);
    lines.push(
      `${verdict}  latency: gateway p50 ≤ direct p50 + ${MAX_ADDED_P50_MS.toFixed(2)} ms at 1 connection (non-streaming): ` +
        `${signedMs(added)} ms (${ms(single.gateway.latency.p50)} vs ${ms(single.direct.latency.p50)} ms)`,
    );
  } else {
    lines.push('n/a   latency goal: scenario json-1 not measured');
  }
  const slow = find('sse-1000-slow');
  if (slow) {
    const ratio = (slow.gateway.ttfb?.p99 ?? Number.NaN) / (slow.direct.ttfb?.p99 ?? Number.NaN);
    const verdict = verdictOf(slow, ratio <= MAX_SLOW_TTFB_RATIO);
    lines.push(
      `${verdict}  slow streams: gateway TTFB p99 ≤ ${MAX_SLOW_TTFB_RATIO.toFixed(1)} × direct with 1,000 at once: ` +
        `${ratio.toFixed(2)} × (${ms(slow.gateway.ttfb?.p99)} vs ${ms(slow.direct.ttfb?.p99)} ms)`,
    );
  } else {
    lines.push('n/a   slow-streams goal: scenario sse-1000-slow not measured');
  }
  return lines.join('\n');
}

/**
 * Where the CPU went per request, per process, and how busy the machine was otherwise ("other":
 * anything else running, so a noisy row can be told apart). Empty where /proc could not be read.
 */
export function cpuTable(rows) {
  const measured = rows.filter((row) => row.direct.cpuUsPerRequest && row.gateway.cpuUsPerRequest);
  if (!measured.length) return '';
  const us = (value) => (Number.isFinite(value) ? Math.round(value).toString() : 'n/a');
  const ours = (share) => (share.bench + share.upstream + share.gateway).toFixed(2);
  return markdownTable(
    [
      'scenario',
      'direct: bench',
      'direct: upstream',
      'via gw: bench',
      'via gw: upstream',
      'via gw: gateway',
      'gateway cores',
      'bench+children cores d/g',
      'other cores d/g',
    ],
    measured.map((row) => {
      const [d, g] = [row.direct.cpuUsPerRequest, row.gateway.cpuUsPerRequest];
      const [ds, gs] = [row.direct.cpuShare, row.gateway.cpuShare];
      return [
        label(row),
        us(d.bench),
        us(d.upstream),
        us(g.bench),
        us(g.upstream),
        us(g.gateway),
        gs.gateway.toFixed(2),
        `${ours(ds)}/${ours(gs)}`,
        `${Math.max(0, ds.other).toFixed(2)}/${Math.max(0, gs.other).toFixed(2)}`,
      ];
    }),
    ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
  );
}
