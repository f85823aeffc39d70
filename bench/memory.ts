import { readFileSync } from 'node:fs';
import type { BenchStack } from './bench-stack.ts';
import { cpuTime } from './cpu-time.ts';
import { busyConcurrency, generateRequests } from './generate-latency.ts';
import { settings } from './settings.ts';
import { percentile } from './stats.ts';
import { alone, atMost, heading, type Row } from './table.ts';
import { waitUntilQuiet } from './temporal-cost.ts';

// Memory after minutes of load: the resident set (VmRSS) of the service and of the Temporal server, before, during
// and after BENCH_MEMORY_SECONDS (180) of generate at concurrency 16, the generate section's requests. The bench runs
// the api and the worker in its own process (bench/bench-stack.ts), so their memory is this process's, the bench's
// own small share included; the Temporal server is the child process named `temporal`, found as bench/cpu-time.ts
// finds the processes it profiles.
//
// A leak is memory that keeps growing once the load is steady. The first third of the run (a minute by default) is
// warm-up: V8's heap, the workflow cache, the connection pools and malloc's arenas grow to their working size. The
// check is on the last third against the second: RSS is read every second and each third's median compared, which
// one garbage collection's sawtooth does not move. Why the bound is what it is: bench/README.md.

/** Growth allowed from the second third's median to the last one's, as a share of the second's. */
const boundShare = 0.1;
const mebibyte = 1024 * 1024;

type Watched = { name: string; pid: number; checked: boolean; why?: string };

export async function benchMemory(stack: BenchStack): Promise<Row[]> {
  const seconds = settings.memorySeconds;
  if (seconds < 3) throw new Error('BENCH_MEMORY_SECONDS must be at least 3 (the check compares thirds of the run)');
  const watched = processesToWatch();
  const { newPost, generate } = await generateRequests(stack, 'Memory');
  const rss = () => watched.map(({ pid }) => residentBytes(pid));
  // Printed as they are read, so a run that fails or is stopped still shows them.
  const report = (when: string, reading: number[]) =>
    console.error(`memory: ${when}: ${watched.map(({ name }, index) => `${name} ${mb(reading[index]!)}`).join(', ')}`);

  for (let index = 0; index < busyConcurrency; index += 1) await generate(await newPost(index));
  await waitUntilQuiet(stack.scope);
  const before = rss();
  report('before', before);

  const thirdSeconds = Math.round(seconds / 3);
  const thirds: number[][][] = [[], [], []];
  const marks: number[][] = [];
  const requests = [0, 0, 0];
  const started = Date.now();
  const third = () => Math.min(2, Math.floor(((Date.now() - started) / 1000 / seconds) * 3));
  let running = true;
  const sampler = (async () => {
    for (let second = 1; running; second += 1) {
      await new Promise((resolveWait) => setTimeout(resolveWait, started + second * 1000 - Date.now()));
      if (!running) break;
      const reading = rss();
      thirds[third()]!.push(reading);
      if (second % thirdSeconds === 0) {
        marks.push(reading);
        report(`after ${second} s`, reading);
      }
    }
  })();
  let next = busyConcurrency;
  await Promise.all(
    Array.from({ length: busyConcurrency }, async () => {
      while (Date.now() - started < seconds * 1000) {
        await generate(await newPost(next++));
        requests[third()]! += 1;
      }
    }),
  );
  running = false;
  await sampler;
  await waitUntilQuiet(stack.scope);
  const after = rss();
  report('after, once quiet', after);

  const median = (readings: number[][], index: number) =>
    percentile(
      readings.map((reading) => reading[index]!),
      50,
    );
  const checks = watched.map((process, index) => {
    const [second, last] = [median(thirds[1]!, index), median(thirds[2]!, index)];
    return { ...process, growth: last - second, bound: boundShare * second };
  });
  const rows: Row[] = [
    heading(
      `memory (RSS) over ${seconds} s of generate at concurrency ${busyConcurrency}: ${requests.reduce((sum, count) => sum + count, 0)} requests (${requests.join(' / ')} per ${thirdSeconds} s)`,
    ),
    ...checks.flatMap(({ name, checked, why, growth, bound }, index) => [
      alone(
        `${name}: before, each ${thirdSeconds} s, after`,
        [before[index]!, ...marks.map((reading) => reading[index]!), after[index]!].map(mb).join(' → '),
        '',
      ),
      alone(
        `  growth, median of the last ${thirdSeconds} s over the ${thirdSeconds} s before`,
        growth / mebibyte,
        '',
        checked ? atMost(bound / mebibyte, '') : undefined,
        checked ? `MB (bound: ${boundShare * 100}% of ${mb(bound / boundShare)})` : `MB (not checked: ${why})`,
      ),
    ]),
  ];
  const over = checks.filter(({ checked, growth, bound }) => checked && growth > bound);
  if (over.length > 0) {
    console.error(rows.map((row) => `${row.benchmark}  ${row.figure}`).join('\n'));
    throw new Error(
      `memory: ${over.map(({ name, growth, bound }) => `${name} grew ${mb(growth)} in the last ${thirdSeconds} s, over its bound of ${mb(bound)}`).join('; ')}`,
    );
  }
  return rows;
}

/**
 * This process (api and worker) and the Temporal server it started. A server without `--db-filename` keeps every
 * workflow's history in its own memory, so its resident size grows with each workflow by design: it is shown but
 * not held to the bound.
 */
function processesToWatch(): Watched[] {
  const temporal = [...cpuTime().entries].filter(([key, { group }]) => key.startsWith('process ') && group === 'temporal');
  if (temporal.length !== 1) throw new Error(`memory: expected one Temporal server process below this one, found ${temporal.length}`);
  const pid = Number(temporal[0]![0].slice('process '.length));
  const fileBacked = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('--db-filename');
  return [
    { name: 'api + worker (the bench process)', pid: process.pid, checked: true },
    fileBacked
      ? { name: 'Temporal server', pid, checked: true }
      : { name: 'Temporal server', pid, checked: false, why: 'its store is in memory and holds every history' },
  ];
}

/** VmRSS of a process, in bytes. */
function residentBytes(pid: number): number {
  const line = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!line) throw new Error(`memory: /proc/${pid}/status has no VmRSS`);
  return Number(line[1]) * 1024;
}

function mb(bytes: number): string {
  return `${(bytes / mebibyte).toFixed(0)} MB`;
}
