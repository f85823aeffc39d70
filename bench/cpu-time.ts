import { readdirSync, readFileSync } from 'node:fs';

// CPU time spent by the whole stack (this process thread by thread, and the PostgreSQL and Temporal servers it
// started), read from Linux's /proc: where the cores went while a benchmark ran, as a profile rather than a guess.
// Elsewhere than Linux it reads nothing, and the rows say so.

/** CPU milliseconds per group ("temporal", "postgres", or one of this process's thread names). */
export type CpuTime = Map<string, number>;

const ticksPerMs = 100 / 1000; // USER_HZ is 100 on every Linux this runs on

type Stat = { pid: number; name: string; parent: number; ms: number };

function readStat(path: string): Stat | undefined {
  try {
    const text = readFileSync(path, 'utf8');
    // The name is in parentheses and may hold spaces: the fields after the last ")" are fixed.
    const close = text.lastIndexOf(')');
    const fields = text.slice(close + 2).split(' ');
    return { pid: Number(text.slice(0, text.indexOf(' '))), name: text.slice(text.indexOf('(') + 1, close), parent: Number(fields[1]), ms: (Number(fields[11]) + Number(fields[12])) / ticksPerMs };
  } catch {
    return undefined; // the process or thread ended meanwhile
  }
}

/**
 * CPU time so far of this process's threads and of every process below it or below one of `roots` (a daemon such
 * as PostgreSQL's server is not this process's child), by group.
 */
export function cpuTime(roots: number[] = []): CpuTime {
  const groups: CpuTime = new Map();
  const add = (group: string, ms: number) => groups.set(group, (groups.get(group) ?? 0) + ms);
  let processes: Stat[];
  try {
    processes = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).flatMap((pid) => readStat(`/proc/${pid}/stat`) ?? []);
  } catch {
    return groups;
  }
  for (const thread of readdirSync('/proc/self/task')) {
    const stat = readStat(`/proc/self/task/${thread}/stat`);
    if (stat) add(stat.name.replace(/\d+$/, ''), stat.ms);
  }
  const children = new Map<number, Stat[]>();
  for (const stat of processes) children.set(stat.parent, [...(children.get(stat.parent) ?? []), stat]);
  const below = (pid: number): Stat[] => (children.get(pid) ?? []).flatMap((child) => [child, ...below(child.pid)]);
  const byPid = new Map(processes.map((stat) => [stat.pid, stat]));
  const others = roots.flatMap((pid) => byPid.get(pid) ?? []);
  for (const stat of [...below(process.pid), ...others, ...others.flatMap((root) => below(root.pid))]) add(stat.name, stat.ms);
  return groups;
}

// Thread and process names as Linux shows them (15 characters at most), in words.
const labels: Record<string, string> = {
  MainThread: 'node main thread',
  V8Worker: 'V8 helper threads (GC)',
  WorkerThread: 'workflow thread',
  receiver: "webhook receiver (the customer's side)",
  artwork: 'artwork thread',
  'libvips worker': 'libvips',
  'libuv-worker': 'libuv pool',
  'tokio-runtime-w': 'Temporal SDK core',
  temporal: 'Temporal server',
  postgres: 'PostgreSQL',
};

/** What was spent between two readings, by group, largest first. */
export function cpuSpent(before: CpuTime, after: CpuTime): Array<[string, number]> {
  return [...after].map(([group, ms]): [string, number] => [labels[group] ?? group, ms - (before.get(group) ?? 0)]).filter(([, ms]) => ms > 0).sort((a, b) => b[1] - a[1]);
}

/** Adds one reading's spending to a running total. */
export function addSpent(total: Map<string, number>, spent: Array<[string, number]>): Map<string, number> {
  for (const [group, ms] of spent) total.set(group, (total.get(group) ?? 0) + ms);
  return total;
}

/** "204 ms: libvips worker 111, temporal 24, …" for `count` operations; the small groups go into "other". */
export function describeCpu(spent: Array<[string, number]>, count: number, shown = 6): string {
  if (spent.length === 0) return 'not measured (no /proc here)';
  const each = spent.map(([group, ms]): [string, number] => [group, ms / count]).sort((a, b) => b[1] - a[1]);
  const total = each.reduce((sum, [, ms]) => sum + ms, 0);
  const other = each.slice(shown).reduce((sum, [, ms]) => sum + ms, 0);
  const parts = [...each.slice(0, shown).map(([group, ms]) => `${group} ${ms.toFixed(0)}`), ...(other >= 0.5 ? [`other ${other.toFixed(0)}`] : [])];
  return `${total.toFixed(0)} ms: ${parts.join(', ')}`;
}
