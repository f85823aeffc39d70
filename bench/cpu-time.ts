import { readdirSync, readFileSync } from 'node:fs';

// CPU time spent by the whole stack (this process thread by thread, and the PostgreSQL and Temporal servers it
// started), read from Linux's /proc: where the cores went while a benchmark ran, as a profile rather than a guess.
// Elsewhere than Linux it reads nothing, and the rows say so.

/**
 * CPU milliseconds so far: of each of this process's threads (by thread id) and each process around it (by pid),
 * with its group ("temporal", "postgres", or a thread's name), and of this process as a whole.
 */
export type CpuTime = { entries: Map<string, { group: string; ms: number }>; processMs: number };

const ticksPerMs = 100 / 1000; // USER_HZ is 100 on every Linux this runs on

type Stat = { pid: number; name: string; parent: number; ms: number };

function readStat(path: string): Stat | undefined {
  try {
    const text = readFileSync(path, 'utf8');
    // The name is in parentheses and may hold spaces: the fields after the last ")" are fixed.
    const close = text.lastIndexOf(')');
    const fields = text.slice(close + 2).split(' ');
    return {
      pid: Number(text.slice(0, text.indexOf(' '))),
      name: text.slice(text.indexOf('(') + 1, close),
      parent: Number(fields[1]),
      ms: (Number(fields[11]) + Number(fields[12])) / ticksPerMs,
    };
  } catch {
    return undefined; // the process or thread ended meanwhile
  }
}

/**
 * CPU time so far of this process's threads and of every process below it or below one of `roots` (a daemon such
 * as PostgreSQL's server is not this process's child).
 */
export function cpuTime(roots: number[] = []): CpuTime {
  const reading: CpuTime = { entries: new Map(), processMs: 0 };
  let processes: Stat[];
  try {
    processes = readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .flatMap((pid) => readStat(`/proc/${pid}/stat`) ?? []);
  } catch {
    return reading;
  }
  for (const thread of readdirSync('/proc/self/task')) {
    const stat = readStat(`/proc/self/task/${thread}/stat`);
    if (stat) reading.entries.set(`thread ${thread}`, { group: stat.name.replace(/\d+$/, ''), ms: stat.ms });
  }
  reading.processMs = readStat('/proc/self/stat')?.ms ?? 0;
  const children = new Map<number, Stat[]>();
  for (const stat of processes) children.set(stat.parent, [...(children.get(stat.parent) ?? []), stat]);
  const below = (pid: number): Stat[] => (children.get(pid) ?? []).flatMap((child) => [child, ...below(child.pid)]);
  const byPid = new Map(processes.map((stat) => [stat.pid, stat]));
  const others = roots.flatMap((pid) => byPid.get(pid) ?? []);
  for (const stat of [...below(process.pid), ...others, ...others.flatMap((root) => below(root.pid))]) {
    reading.entries.set(`process ${stat.pid}`, { group: stat.name, ms: stat.ms });
  }
  return reading;
}

const endedThreads = 'ended threads';

/** The group of `cpuSpent` that is the Temporal server's process. */
export const temporalServer = 'Temporal server';

// Thread and process names as Linux shows them (15 characters at most), in words.
const labels: Record<string, string> = {
  MainThread: 'node main thread',
  V8Worker: 'V8 helper threads (GC)',
  WorkerThread: 'workflow thread',
  receiver: "webhook receiver (the customer's side)",
  artwork: 'artwork thread',
  renders: 'render bound thread',
  'libvips worker': 'libvips',
  'libuv-worker': 'libuv pool',
  'tokio-runtime-w': 'Temporal SDK core',
  temporal: temporalServer,
  postgres: 'PostgreSQL',
  [endedThreads]: 'threads that ended meanwhile',
};

/** What was spent between two readings, by group, largest first. */
export function cpuSpent(before: CpuTime, after: CpuTime): Array<[string, number]> {
  const spent = new Map<string, number>();
  const add = (group: string, ms: number) => spent.set(group, (spent.get(group) ?? 0) + ms);
  let threadsMs = 0;
  for (const [key, { group, ms }] of after.entries) {
    const delta = ms - (before.entries.get(key)?.ms ?? 0);
    add(group, delta);
    if (key.startsWith('thread ')) threadsMs += delta;
  }
  // A thread that ended in between (a pool shrinking while idle) left the list with its time; the process's own
  // total keeps it.
  add(endedThreads, after.processMs - before.processMs - threadsMs);
  return [...spent]
    .map(([group, ms]): [string, number] => [labels[group] ?? group, ms])
    .filter(([, ms]) => ms > 0)
    .sort((a, b) => b[1] - a[1]);
}

/** Adds one reading's spending to a running total. */
export function addSpent(total: Map<string, number>, spent: Array<[string, number]>): Map<string, number> {
  for (const [group, ms] of spent) total.set(group, (total.get(group) ?? 0) + ms);
  return total;
}

/** Milliseconds of CPU per operation, all groups together. */
export function cpuPerOperation(spent: Iterable<[string, number]>, count: number): number {
  let total = 0;
  for (const [, ms] of spent) total += ms;
  return total / count;
}

/** "204 ms: libvips worker 111, temporal 24, …" for `count` operations; the small groups go into "other". */
export function describeCpu(spent: Array<[string, number]>, count: number, shown = 6): string {
  if (spent.length === 0) return 'not measured (no /proc here)';
  const each = spent.map(([group, ms]): [string, number] => [group, ms / count]).sort((a, b) => b[1] - a[1]);
  const total = cpuPerOperation(spent, count);
  const other = each.slice(shown).reduce((sum, [, ms]) => sum + ms, 0);
  const parts = [...each.slice(0, shown).map(([group, ms]) => `${group} ${ms.toFixed(0)}`), ...(other >= 0.5 ? [`other ${other.toFixed(0)}`] : [])];
  return `${total.toFixed(0)} ms: ${parts.join(', ')}`;
}
