// The hub bench's tables: bare BullMQ against Switchboard per phase, the correctness check, and
// the targets with PASS / FAIL.
import { markdownTable } from './report.mjs';

/**
 * @typedef {object} SystemResult
 * @property {import('./hub-load.mjs').Phase} accept
 * @property {import('./hub-load.mjs').Phase} drain
 * @property {import('./hub-load.mjs').Phase} endToEnd
 * @property {import('./hub-load.mjs').Phase} oneInFlight
 * @property {import('./hub-load.mjs').Check} check
 */

/** The measured phases of a SystemResult, in run order. */
export const PHASES = ['accept', 'drain', 'endToEnd', 'oneInFlight'];

/** Issue 22 item 5 (worker CPU, commands, end-to-end ratio); API and Redis CPU from earlier targets. */
export const TARGETS = {
  workerCpuMs: 0.8,
  apiCpuMs: 0.35,
  redisCpuMs: 0.4,
  redisCommands: 45,
  throughputRatio: 0.3,
};

const fixed = (digits) => (value) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
const rate = (value) => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : 'n/a');
const ms2 = fixed(2);
const ms3 = fixed(3);
const count1 = fixed(1);

/** CPU ms of one process per measured message; NaN where it was not measured. */
export function cpuPerMessage(phase, name) {
  const ms = phase.cpuMs?.[name];
  return ms === undefined || !phase.messages ? Number.NaN : ms / phase.messages;
}

/** Busy cores used by everything but the bench and its children: above ~0.1, the phase was noisy. */
const otherCores = (phase) => (phase.cpuMs ? Math.max(0, phase.cpuMs.other) / phase.elapsedMs : Number.NaN);

/** A phase with errors or cut short says so next to its name, so a pasted table cannot hide it. */
function phaseLabel(name, bare, hub) {
  const flags = [bare, hub].some((phase) => phase.errors || phase.incomplete) ? ' ⚠' : '';
  return `${name}${flags}`;
}

/**
 * The main table: one row per metric, bare and Switchboard side by side, and Switchboard ÷ bare
 * (for rates below 1 is slower; for latency, CPU and commands above 1 is costlier).
 * @param {SystemResult} bare
 * @param {SystemResult} hub
 */
export function comparisonTable(bare, hub) {
  const rows = [];
  const add = (phase, metric, b, h, format, { ratio = true } = {}) => {
    const shown = ratio && Number.isFinite(b) && Number.isFinite(h) && b > 0 ? (h / b).toFixed(2) : '';
    rows.push([phase, metric, format(b), format(h), shown]);
  };
  const cpu = (phase, metric, name, b, h) =>
    add(phase, `${metric} CPU ms/msg`, cpuPerMessage(b, name), cpuPerMessage(h, name), ms3);
  const redis = (phase, b, h) => {
    cpu(phase, 'redis-server', 'redis', b, h);
    add(phase, 'Redis commands/msg (inside Lua included)', b.commands / b.messages, h.commands / h.messages, count1);
    add(phase, 'of which script calls/msg (EVAL/EVALSHA)', b.scripts / b.messages, h.scripts / h.messages, count1);
    add(phase, 'Redis used memory Δ bytes/msg', b.memoryBytes / b.messages, h.memoryBytes / h.messages, rate, { ratio: false });
  };
  const machine = (phase, b, h) => {
    cpu(phase, 'bench process (load; hub: + receiver)', 'bench', b, h);
    add(phase, 'other cores busy (noise, want ≈ 0)', otherCores(b), otherCores(h), ms2, { ratio: false });
  };
  const latency = (phase, metric, b, h) => {
    add(phase, `${metric} p50 ms`, b.latency?.p50, h.latency?.p50, ms2);
    add(phase, `${metric} p99 ms`, b.latency?.p99, h.latency?.p99, ms2);
  };

  const a = phaseLabel('(a) accept', bare.accept, hub.accept);
  add(a, 'accepts/s', bare.accept.rate, hub.accept.rate, rate);
  latency(a, 'sent → accepted', bare.accept, hub.accept);
  add(
    a,
    'accepting CPU ms/msg (bare: bench queue.add; hub: API)',
    cpuPerMessage(bare.accept, 'bench'),
    cpuPerMessage(hub.accept, 'api'),
    ms3,
  );
  redis(a, bare.accept, hub.accept);
  add(a, 'other cores busy (noise, want ≈ 0)', otherCores(bare.accept), otherCores(hub.accept), ms2, { ratio: false });

  const b = phaseLabel('(b) drain', bare.drain, hub.drain);
  add(b, 'drained/s (one worker)', bare.drain.rate, hub.drain.rate, rate);
  cpu(b, 'worker', 'worker', bare.drain, hub.drain);
  redis(b, bare.drain, hub.drain);
  cpu(b, 'fake upstream', 'upstream', bare.drain, hub.drain);
  machine(b, bare.drain, hub.drain);

  const c = phaseLabel('(c) end-to-end', bare.endToEnd, hub.endToEnd);
  add(c, 'delivered/s', bare.endToEnd.rate, hub.endToEnd.rate, rate);
  latency(c, 'sent → delivered', bare.endToEnd, hub.endToEnd);
  add(
    c,
    'API CPU ms/msg (bare: bench queue.add)',
    cpuPerMessage(bare.endToEnd, 'bench'),
    cpuPerMessage(hub.endToEnd, 'api'),
    ms3,
  );
  cpu(c, 'worker', 'worker', bare.endToEnd, hub.endToEnd);
  redis(c, bare.endToEnd, hub.endToEnd);
  cpu(c, 'fake upstream', 'upstream', bare.endToEnd, hub.endToEnd);
  machine(c, bare.endToEnd, hub.endToEnd);

  const d = phaseLabel('(d) one in flight', bare.oneInFlight, hub.oneInFlight);
  add(d, 'delivered/s', bare.oneInFlight.rate, hub.oneInFlight.rate, rate);
  latency(d, 'sent → delivered', bare.oneInFlight, hub.oneInFlight);
  add(
    d,
    'Redis commands/msg (inside Lua included)',
    bare.oneInFlight.commands / bare.oneInFlight.messages,
    hub.oneInFlight.commands / hub.oneInFlight.messages,
    count1,
  );

  return markdownTable(['phase', 'metric', 'bare BullMQ', 'Switchboard', 'Switchboard ÷ bare'], rows, ['l', 'l', 'r', 'r', 'r']);
}

/**
 * Where the end-to-end phase's Redis commands go: calls per message of each command name (inside
 * scripts included), bare and Switchboard, busiest first; names below 0.05 per message on both
 * sides are left out.
 * @param {SystemResult} bare
 * @param {SystemResult} hub
 */
export function commandsTable(bare, hub) {
  const b = bare.endToEnd;
  const h = hub.endToEnd;
  const names = new Set([...Object.keys(b.byCommand ?? {}), ...Object.keys(h.byCommand ?? {})]);
  const perMessage = (phase, name) => (phase.byCommand?.[name] ?? 0) / phase.messages;
  const rows = [...names]
    .map((name) => [name, perMessage(b, name), perMessage(h, name)])
    .filter(([, bare, hub]) => bare >= 0.05 || hub >= 0.05)
    .sort((x, y) => y[2] - x[2] || y[1] - x[1])
    .map(([name, bare, hub]) => [name, count1(bare), count1(hub)]);
  return markdownTable(['Redis command ((c) end-to-end)', 'bare BullMQ /msg', 'Switchboard /msg'], rows, ['l', 'r', 'r']);
}

/**
 * What Redis holds per finished message once the backlog is drained: the change of `used_memory`
 * over the warm-up, (a) and (b), divided by the jobs the queue keeps of them (Switchboard: at most
 * `keepJobs` completed per shard; bare BullMQ as many, by its removeOnComplete). Then what (c) added per
 * message: about 0 once the count bound is reached (each new finished job removes an old one).
 * @param {SystemResult & { warmup: import('./hub-load.mjs').Phase }} bare
 * @param {SystemResult & { warmup: import('./hub-load.mjs').Phase }} hub
 * @param {number} keepJobs Switchboard's `worker.keepJobs`
 */
export function memoryLines(bare, hub, keepJobs) {
  const held = (result, kept) => (result.warmup.memoryBytes + result.accept.memoryBytes + result.drain.memoryBytes) / kept;
  const backlog = (result) => result.warmup.messages + result.accept.messages;
  const keptOf = (result) => Math.min(backlog(result), keepJobs);
  const line = (name, result, kept, bound) =>
    `- ${name}: ${rate(held(result, kept))} bytes per kept message after (b) (${kept.toLocaleString('en-US')} kept${bound}); ` +
    `(c) then added ${rate(result.endToEnd.memoryBytes / result.endToEnd.messages)} bytes per message`;
  return [
    'Redis used memory (INFO memory `used_memory`, retention as configured):',
    '',
    line('bare BullMQ', bare, keptOf(bare), `, removeOnComplete count ${keepJobs.toLocaleString('en-US')}`),
    line('Switchboard', hub, keptOf(hub), `, worker.keepJobs ${keepJobs.toLocaleString('en-US')}`),
  ].join('\n');
}

const PHASE_NAMES = {
  warmup: 'warm-up',
  accept: '(a) accept',
  drain: '(b) drain',
  endToEnd: '(c) end-to-end',
  oneInFlight: '(d) one in flight',
};

/** Messages and seconds per measured phase, and what went wrong in any phase (warm-up included). */
export function phaseNotes(results) {
  const lines = [];
  for (const [system, result] of Object.entries(results)) {
    for (const key of ['warmup', ...PHASES]) {
      const phase = result[key];
      if (!phase || (key === 'warmup' && !phase.errors && !phase.incomplete)) continue;
      const parts = [`${system} ${PHASE_NAMES[key]}: ${phase.messages} messages in ${(phase.elapsedMs / 1000).toFixed(2)} s`];
      if (phase.errors) parts.push(`⚠ ${phase.errors} errors, first: ${phase.firstError}`);
      if (phase.incomplete) parts.push(`⚠ ${phase.incomplete}`);
      lines.push(`- ${parts.join('; ')}`);
    }
  }
  return lines.join('\n');
}

/** Lost, duplicated, out of order, per system. */
export function correctnessTable(bare, hub) {
  const row = (label, key, show = (v) => String(v)) => [label, show(bare.check[key]), show(hub.check[key])];
  const mark = (v) => (v === null ? 'not checked' : v > 0 ? `${v} ⚠` : String(v));
  return markdownTable(
    ['', 'bare BullMQ', 'Switchboard'],
    [
      row('accepted', 'accepted'),
      row('delivered (distinct)', 'delivered'),
      row('lost (accepted, never delivered)', 'lost', mark),
      row('duplicated (same job id or idempotency-key twice)', 'duplicated', mark),
      row('out of order (within a conversation)', 'outOfOrder', mark),
      row('unexpected (job id never accepted)', 'unexpected', mark),
      row('malformed deliveries', 'bad', mark),
    ],
    ['l', 'r', 'r'],
  );
}

/** True when a check found anything wrong (order only where it was checked). */
export function checkFailed(check) {
  return check.lost > 0 || check.duplicated > 0 || (check.outOfOrder ?? 0) > 0 || check.unexpected > 0 || check.bad > 0;
}

/**
 * The capacity model (issue 22 item 7), from the end-to-end phase's CPU per message: messages/s
 * one core of each process kind carries, then what 1, 3 and 10 Redis masters carry with `shards`
 * shards. A cluster's busiest master serves ceil(shards / masters) of the shards (the shard tags
 * are spread evenly over the slots; the redis-shards test measured 37.0–38.0 % of the commands on
 * the busiest of 3 masters with 16 shards, against the 6/16 = 37.5 % this predicts), so the hub
 * runs out when that master's core does; the worker cores it takes to keep up follow. On a
 * cluster a message costs more Redis work than here (more queues polled, MOVED-aware clients):
 * read the table as an upper bound.
 * @param {SystemResult} hub
 * @param {number} shards
 */
export function capacityLines(hub, shards = 16) {
  const e2e = hub.endToEnd;
  const perCore = (name) => 1000 / cpuPerMessage(e2e, name);
  const redis = perCore('redis');
  const worker = perCore('worker');
  const api = 1000 / cpuPerMessage(hub.accept, 'api');
  const rows = [1, 3, 10].map((masters) => {
    const busiest = masters === 1 ? 1 : Math.ceil(shards / masters) / shards;
    const ceiling = redis / busiest;
    return [
      String(masters),
      masters === 1 ? '1 (all)' : `${Math.ceil(shards / masters)}/${shards} = ${(busiest * 100).toFixed(1)} %`,
      rate(ceiling),
      fixed(1)(ceiling / worker),
      fixed(1)(ceiling / api),
    ];
  });
  return [
    'Capacity (from (c) end-to-end; one busy core each):',
    '',
    `- one Redis core: ${rate(redis)} messages/s; one worker core: ${rate(worker)}; one API core (accepts): ${rate(api)}`,
    '',
    markdownTable(
      ['Redis masters', 'busiest master carries', 'messages/s (Redis-bound)', 'worker cores to keep up', 'API cores to keep up'],
      rows,
      ['r', 'l', 'r', 'r', 'r'],
    ),
  ].join('\n');
}

/**
 * The targets, each PASS, FAIL or VOID (its phase had errors, was cut short, or CPU could not be
 * read). CPU and commands are judged on the end-to-end phase (everything running, each message's
 * whole life), API CPU on the accept phase; the other phase's figure is shown alongside.
 * @param {SystemResult} bare
 * @param {SystemResult} hub
 */
export function targets(bare, hub) {
  const { accept, drain, endToEnd: e2e } = hub;
  const cpu = cpuPerMessage;
  const commands = (phase) => phase.commands / phase.messages;
  const worker = cpu(e2e, 'worker');
  const api = cpu(accept, 'api');
  const redis = cpu(e2e, 'redis');
  const ratio = e2e.rate / bare.endToEnd.rate;
  const { lost, duplicated, outOfOrder } = hub.check;
  return [
    judge(
      worker,
      worker <= TARGETS.workerCpuMs,
      [e2e],
      `worker CPU ≤ ${TARGETS.workerCpuMs} ms per message, end-to-end: ${ms3(worker)} ms (drain: ${ms3(cpu(drain, 'worker'))})`,
    ),
    judge(
      api,
      api <= TARGETS.apiCpuMs,
      [accept],
      `API CPU ≤ ${TARGETS.apiCpuMs} ms per accept, accept phase: ${ms3(api)} ms (end-to-end: ${ms3(cpu(e2e, 'api'))})`,
    ),
    judge(
      redis,
      redis <= TARGETS.redisCpuMs,
      [e2e],
      `redis-server CPU ≤ ${TARGETS.redisCpuMs} ms per message, end-to-end (accept + run + deliver): ${ms3(redis)} ms ` +
        `(accept + drain: ${ms3(cpu(accept, 'redis') + cpu(drain, 'redis'))})`,
    ),
    judge(
      commands(e2e),
      commands(e2e) <= TARGETS.redisCommands,
      [e2e],
      `Redis commands ≤ ${TARGETS.redisCommands} per message, end-to-end (inside Lua included): ${count1(commands(e2e))} ` +
        `(accept + drain: ${count1(commands(accept) + commands(drain))}; bare BullMQ end-to-end: ${count1(commands(bare.endToEnd))})`,
    ),
    judge(
      ratio,
      ratio >= TARGETS.throughputRatio,
      [e2e, bare.endToEnd],
      `delivered/s end-to-end ≥ ${TARGETS.throughputRatio} × bare BullMQ end-to-end: ` +
        `${ratio.toFixed(2)} × (${rate(e2e.rate)} vs ${rate(bare.endToEnd.rate)}/s)`,
    ),
    judge(
      lost + duplicated + outOfOrder,
      lost === 0 && duplicated === 0 && outOfOrder === 0,
      [],
      `0 lost / 0 duplicated / 0 out of order: ${lost} / ${duplicated} / ${outOfOrder}`,
    ),
  ].join('\n');
}

/** One target line: VOID when a phase it rests on broke or its value could not be measured. */
function judge(value, met, phases, text) {
  const broken = phases.some((phase) => phase.errors || phase.incomplete) || !Number.isFinite(value);
  return `${(broken ? 'VOID' : met ? 'PASS' : 'FAIL').padEnd(4)}  ${text}`;
}
