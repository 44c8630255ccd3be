// The hub bench's load and bookkeeping: which message goes to which conversation, what was
// accepted and delivered when, the three measured phases (accept, backlog drain, end-to-end),
// and the loss / duplicate / order check. The same code drives bare BullMQ and Switchboard;
// a `System` says how a message is sent and where its deliveries come from.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { machineBusyMs, processCpuMs } from './cpu.mjs';
import { percentiles } from './load.mjs';

/** Epoch ms with sub-ms resolution; the bare worker stamps completions with the same clock. */
export const now = () => performance.timeOrigin + performance.now();

/**
 * @typedef {object} Message
 * @property {number} conv conversation number
 * @property {number} seq its place in the conversation (0, 1, 2…)
 * @property {string} from the sender, i.e. the conversation
 * @property {string} text `m <conv> <seq>`
 */

/**
 * @typedef {object} System
 * @property {string} name
 * @property {(message: Message) => Promise<string>} send queues one message; resolves with its job id
 * @property {Deliveries} deliveries where its deliveries (bare: completions) are recorded
 * @property {Map<string, Accepted>} accepted every job id `send` resolved with
 * @property {() => Promise<void>} startWorker starts the worker process (phase b)
 * @property {Probe} probe
 */

/**
 * @typedef {object} Accepted
 * @property {Message} message
 * @property {number} sentAt epoch ms when the request was sent (or `queue.add` called)
 * @property {number} acceptedAt epoch ms when the 202 came back (or `queue.add` resolved)
 */

/**
 * The conversations and their next sequence numbers. Loop `l` of `loops` owns conversations
 * l, l + loops, l + 2·loops… and takes them in turn, so no two messages of one conversation are
 * ever in flight together: per conversation, acceptance order is sequence order.
 */
export class Conversations {
  /** @param {number} count */
  constructor(count) {
    this.count = count;
    this.nextSeq = new Array(count).fill(0);
    this.turn = new Map();
  }

  /** How many loops can run at once without sharing a conversation. */
  usableLoops(loops) {
    return Math.min(loops, this.count);
  }

  /** @returns {Message} the next message of loop `loop` out of `loops` */
  next(loop, loops) {
    const owned = Math.ceil((this.count - loop) / loops);
    const turn = this.turn.get(`${loops}:${loop}`) ?? 0;
    this.turn.set(`${loops}:${loop}`, turn + 1);
    const conv = loop + (turn % owned) * loops;
    const seq = this.nextSeq[conv]++;
    return { conv, seq, from: `user-${conv}`, text: `m ${conv} ${seq}` };
  }
}

/**
 * Every delivery of one system in arrival order, the first time each job id arrived, and ways
 * to wait for one job or for the n-th distinct job.
 */
export class Deliveries {
  constructor() {
    /** @type {import('./receiver.mjs').Delivery[]} */
    this.log = [];
    /** @type {Map<string, number>} job id → epoch ms of its first delivery */
    this.firstAt = new Map();
    this.waiters = new Map();
    this.milestones = [];
  }

  get distinct() {
    return this.firstAt.size;
  }

  /** @param {import('./receiver.mjs').Delivery} delivery */
  record(delivery) {
    this.log.push(delivery);
    if (this.firstAt.has(delivery.id)) return;
    this.firstAt.set(delivery.id, delivery.at);
    const waiters = this.waiters.get(delivery.id);
    if (waiters) {
      this.waiters.delete(delivery.id);
      for (const waiter of waiters) waiter(delivery.at);
    }
    for (const milestone of this.milestones) if (milestone.count === this.distinct) milestone.fn(delivery.at);
  }

  /** Calls `fn(at)` synchronously when the `count`-th distinct job is delivered. */
  onCount(count, fn) {
    this.milestones.push({ count, fn });
  }

  /** Resolves with the epoch ms of the job's first delivery, or null after `timeoutMs`. */
  waitFor(id, timeoutMs) {
    const at = this.firstAt.get(id);
    if (at !== undefined) return Promise.resolve(at);
    return new Promise((resolve) => {
      const waiter = (deliveredAt) => {
        clearTimeout(timer);
        resolve(deliveredAt);
      };
      const timer = setTimeout(() => {
        const left = (this.waiters.get(id) ?? []).filter((other) => other !== waiter);
        if (left.length) this.waiters.set(id, left);
        else this.waiters.delete(id);
        resolve(null);
      }, timeoutMs);
      this.waiters.set(id, [...(this.waiters.get(id) ?? []), waiter]);
    });
  }

  /** Resolves true once every id of `ids` was delivered, false after `timeoutMs`. */
  async waitForAll(ids, timeoutMs) {
    const deadline = Date.now() + timeoutMs;
    for (const id of ids) {
      if (this.firstAt.has(id)) continue;
      const left = deadline - Date.now();
      if (left <= 0 || (await this.waitFor(id, left)) === null) return false;
    }
    return true;
  }
}

/**
 * Samples what a phase cost: CPU ms of each named process (from /proc), of this process, of the
 * whole machine, and Redis's command counters.
 */
export class Probe {
  /**
   * @param {import('./redis-server.mjs').RedisCounters} counters
   * @param {() => Record<string, number | undefined>} pids pid per process name; undefined = not started
   */
  constructor(counters, pids) {
    this.counters = counters;
    this.pids = pids;
  }

  /** CPU is read at once (synchronously); the Redis counters follow with one INFO. */
  sample() {
    const cpu = {};
    for (const [name, pid] of Object.entries(this.pids())) cpu[name] = pid === undefined ? 0 : processCpuMs(pid);
    const own = process.cpuUsage();
    cpu.bench = (own.user + own.system) / 1000;
    return { at: now(), cpu, machine: machineBusyMs(), redis: this.counters.read() };
  }
}

/**
 * What happened between two samples: CPU ms per process, `other` (the rest of the machine), Redis
 * commands (in all and per name) and the change of Redis's used memory. CPU is null where /proc
 * could not be read.
 * @returns {Promise<{ cpuMs: Record<string, number> | null, commands: number, scripts: number, byCommand: Record<string, number>, memoryBytes: number }>}
 */
export async function between(first, last) {
  const [a, b] = await Promise.all([first.redis, last.redis]);
  const names = Object.keys(last.cpu);
  const readable =
    first.machine !== null && last.machine !== null && names.every((n) => first.cpu[n] !== null && last.cpu[n] !== null);
  let cpuMs = null;
  if (readable) {
    cpuMs = Object.fromEntries(names.map((name) => [name, last.cpu[name] - first.cpu[name]]));
    const ours = Object.values(cpuMs).reduce((sum, ms) => sum + ms, 0);
    cpuMs.other = last.machine - first.machine - ours;
  }
  const byCommand = {};
  for (const [name, calls] of Object.entries(b.byCommand)) {
    const delta = calls - (a.byCommand[name] ?? 0);
    if (delta > 0) byCommand[name] = delta;
  }
  return {
    cpuMs,
    commands: b.commands - a.commands,
    scripts: b.scripts - a.scripts,
    byCommand,
    memoryBytes: b.usedMemory - a.usedMemory,
  };
}

/**
 * @typedef {object} Phase
 * @property {number} messages measured messages (accepted, drained or delivered)
 * @property {number} elapsedMs
 * @property {number} rate messages per second
 * @property {{ p50: number, p99: number } | null} latency ms
 * @property {Record<string, number> | null} cpuMs per process over the phase, `other` included
 * @property {number} commands Redis commands over the phase (inside scripts included)
 * @property {number} scripts EVAL/EVALSHA/FCALL calls over the phase
 * @property {Record<string, number>} byCommand calls per Redis command name over the phase (inside scripts included)
 * @property {number} memoryBytes change of Redis's `used_memory` over the phase
 * @property {number} errors
 * @property {string | null} firstError
 * @property {string | null} incomplete why the phase ended before all its messages, or null
 */

async function phaseResult(first, last, { messages, elapsedMs, latencies, errors = 0, firstError = null, incomplete = null }) {
  return {
    messages,
    elapsedMs,
    rate: (messages / elapsedMs) * 1000,
    latency: latencies ? percentiles(latencies) : null,
    ...(await between(first, last)),
    errors,
    firstError,
    incomplete,
  };
}

/**
 * Sends `messages` messages with `inflight` loops, each waiting for its accept before the next:
 * accepts/s and accept latency (request sent → accepted). Used for the warm-up too.
 * @param {System} system
 * @param {Conversations} conversations
 * @param {{ messages: number, inflight: number, timeoutMs: number }} options
 * @returns {Promise<Phase>}
 */
export async function acceptPhase(system, conversations, { messages, inflight, timeoutMs }) {
  const loops = conversations.usableLoops(inflight);
  const deadline = Date.now() + timeoutMs;
  const latencies = [];
  const failures = { errors: 0, firstError: null };
  let issued = 0;
  const loop = async (l) => {
    while (issued < messages && Date.now() < deadline) {
      issued++;
      const accepted = await sendOne(system, conversations.next(l, loops), failures);
      if (accepted) latencies.push(accepted.acceptedAt - accepted.sentAt);
    }
  };
  const first = system.probe.sample();
  await Promise.all(Array.from({ length: loops }, (_, l) => loop(l)));
  const last = system.probe.sample();
  return phaseResult(first, last, {
    messages: latencies.length,
    elapsedMs: last.at - first.at,
    latencies,
    ...failures,
    incomplete: issued < messages ? `time-out after ${issued} of ${messages} messages` : null,
  });
}

/** Sends one message and records it as accepted; a failure is counted, not thrown. */
async function sendOne(system, message, failures) {
  const sentAt = now();
  try {
    const id = await system.send(message);
    const accepted = { message, sentAt, acceptedAt: now() };
    if (system.accepted.has(id)) throw new Error(`job id ${id} was given to two messages`);
    system.accepted.set(id, accepted);
    return { id, ...accepted };
  } catch (err) {
    failures.errors++;
    failures.firstError ??= err?.message ?? String(err);
    return null;
  }
}

/**
 * Starts the worker on the backlog left by the accept phases and waits until it is drained. The
 * first `warmup` deliveries warm the worker up (start-up, JIT); the rate and the costs are
 * measured from the `warmup`-th delivery to the last.
 * @param {System} system
 * @param {{ warmup: number, timeoutMs: number }} options
 * @returns {Promise<Phase>}
 */
export async function drainPhase(system, { warmup, timeoutMs }) {
  const backlog = system.accepted.size;
  const start = Math.min(Math.max(1, warmup), backlog - 1);
  let first = null;
  let last = null;
  system.deliveries.onCount(start, () => {
    first = system.probe.sample();
  });
  system.deliveries.onCount(backlog, () => {
    last = system.probe.sample();
  });
  await system.startWorker();
  const drained = await system.deliveries.waitForAll(system.accepted.keys(), timeoutMs);
  if (!drained || !first || !last) {
    // Measured over what did arrive, so that a broken run still says how far it got.
    first ??= system.probe.sample();
    last = system.probe.sample();
  }
  const firstAt = [...system.deliveries.firstAt.values()].sort((a, b) => a - b);
  const measured = Math.max(0, Math.min(system.deliveries.distinct, backlog) - start);
  return phaseResult(first, last, {
    messages: measured,
    elapsedMs: (firstAt[start - 1 + measured] ?? last.at) - (firstAt[start - 1] ?? first.at),
    latencies: null,
    incomplete: drained
      ? null
      : `${backlog - system.deliveries.distinct} of ${backlog} messages not delivered within ${timeoutMs} ms`,
  });
}

/**
 * Closed loop with the worker running: each of `inflight` loops sends a message, waits until it
 * is delivered, then sends the next. Latency is request sent → delivered. A message not delivered
 * within `deliveryTimeoutMs` ends the phase (the final check counts it as lost or late).
 * @param {System} system
 * @param {Conversations} conversations
 * @param {{ messages: number, inflight: number, timeoutMs: number, deliveryTimeoutMs: number }} options
 * @returns {Promise<Phase>}
 */
export async function endToEndPhase(system, conversations, { messages, inflight, timeoutMs, deliveryTimeoutMs }) {
  const loops = conversations.usableLoops(inflight);
  const deadline = Date.now() + timeoutMs;
  const latencies = [];
  const failures = { errors: 0, firstError: null };
  let issued = 0;
  let lastAt = 0;
  let stuck = null;
  const loop = async (l) => {
    while (issued < messages && Date.now() < deadline && !stuck) {
      issued++;
      const accepted = await sendOne(system, conversations.next(l, loops), failures);
      if (!accepted) continue;
      const deliveredAt = await system.deliveries.waitFor(accepted.id, deliveryTimeoutMs);
      if (deliveredAt === null) {
        stuck ??= `job ${accepted.id} (${accepted.message.text}) not delivered within ${deliveryTimeoutMs} ms`;
        return;
      }
      latencies.push(deliveredAt - accepted.sentAt);
      lastAt = Math.max(lastAt, deliveredAt);
    }
  };
  const first = system.probe.sample();
  await Promise.all(Array.from({ length: loops }, (_, l) => loop(l)));
  const last = system.probe.sample();
  const incomplete = stuck ?? (issued < messages ? `time-out after ${issued} of ${messages} messages` : null);
  return phaseResult(first, last, {
    messages: latencies.length,
    elapsedMs: (lastAt || last.at) - first.at,
    latencies,
    ...failures,
    incomplete,
  });
}

/**
 * After the last phase: waits (at most `timeoutMs`) until every accepted message is delivered,
 * then `quietMs` more for late duplicates.
 * @param {System} system
 */
export async function settle(system, { timeoutMs, quietMs }) {
  const complete = await system.deliveries.waitForAll(system.accepted.keys(), timeoutMs);
  await sleep(quietMs);
  return complete;
}

/**
 * @typedef {object} Check
 * @property {number} accepted
 * @property {number} delivered distinct accepted jobs delivered at least once
 * @property {number} lost accepted, never delivered
 * @property {number} duplicated jobs delivered more than once (same job id or same idempotency-key)
 * @property {number | null} outOfOrder deliveries that came after a later message of their conversation; null when not checked
 * @property {number} unexpected deliveries of job ids never accepted
 * @property {number} bad deliveries whose request was malformed (see firstProblem)
 * @property {string | null} firstProblem
 */

/**
 * Loss, duplicates and (with `ordered`) per-conversation order, from what was accepted and the
 * deliveries in arrival order. Acceptance order per conversation is sequence order, as no two
 * messages of one conversation are ever in flight together (see Conversations).
 * @param {System} system
 * @returns {Check}
 */
export function check(system, { ordered }) {
  const { accepted, deliveries } = system;
  const perId = new Map();
  const perKey = new Map();
  let unexpected = 0;
  let bad = 0;
  let firstProblem = null;
  const note = (problem) => {
    bad++;
    firstProblem ??= problem;
  };
  for (const delivery of deliveries.log) {
    perId.set(delivery.id, (perId.get(delivery.id) ?? 0) + 1);
    if (delivery.key !== undefined) perKey.set(delivery.key, (perKey.get(delivery.key) ?? 0) + 1);
    const sent = accepted.get(delivery.id);
    if (!sent) unexpected++;
    if (delivery.problem) note(`job ${delivery.id}: ${delivery.problem}`);
    else if (sent && delivery.to !== undefined && delivery.to !== sent.message.from)
      note(`job ${delivery.id}: to is ${delivery.to}, not ${sent.message.from}`);
  }
  const duplicatedIds = new Set([...perId].filter(([, n]) => n > 1).map(([id]) => id));
  for (const [key, n] of perKey) if (n > 1) duplicatedIds.add(key);
  let delivered = 0;
  for (const id of accepted.keys()) if (perId.has(id)) delivered++;
  return {
    accepted: accepted.size,
    delivered,
    lost: accepted.size - delivered,
    duplicated: duplicatedIds.size,
    outOfOrder: ordered ? countOutOfOrder(accepted, deliveries.log) : null,
    unexpected,
    bad,
    firstProblem,
  };
}

/** Per conversation, first deliveries in arrival order must have rising sequence numbers. */
function countOutOfOrder(accepted, log) {
  const highest = new Map();
  const seen = new Set();
  let late = 0;
  for (const { id } of log) {
    const sent = accepted.get(id);
    if (!sent || seen.has(id)) continue;
    seen.add(id);
    const { conv, seq } = sent.message;
    if (seq < (highest.get(conv) ?? -1)) late++;
    else highest.set(conv, seq);
  }
  return late;
}
