// CPU time from /proc (Linux), to say where the CPU went per request and whether something
// else on the machine was competing for it. Everything returns null where there is no /proc.
import { readFileSync } from 'node:fs';

/** Linux reports /proc times in USER_HZ ticks, 100 per second on every common architecture. */
const MS_PER_TICK = 10;

/** User + system CPU time of a process (all its threads) so far, in ms. */
export function processCpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK;
  } catch {
    return null;
  }
}

/** Busy CPU time of the whole machine so far (all cores, all processes, steal included), in ms. */
export function machineBusyMs() {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
    // cpu  user nice system idle iowait irq softirq steal guest guest_nice
    const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    return (user + nice + system + irq + softirq + steal) * MS_PER_TICK;
  } catch {
    return null;
  }
}

/** CPU time so far of a process and all its descendants (an API under API_PROCESSES), in ms. */
export function treeCpuMs(pid) {
  const own = processCpuMs(pid);
  if (own === null) return null;
  let total = own;
  for (const child of childrenOf(pid)) total += treeCpuMs(child) ?? 0;
  return total;
}

function childrenOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * `connections` loops each awaiting `call()` over and over for `ms`: this process's CPU µs per
 * call, and calls per second.
 */
export async function cpuPerCall(call, connections, ms) {
  let done = 0;
  const start = process.cpuUsage();
  const end = Date.now() + ms;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < end) {
        await call();
        done++;
      }
    }),
  );
  const cpu = process.cpuUsage(start);
  return { usPerCall: (cpu.user + cpu.system) / done, perSecond: (done * 1000) / ms };
}
