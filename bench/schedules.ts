import { planRules } from '../src/domain/workspaces/plans.ts';
import type { BenchStack } from './bench-stack.ts';
import { addSpent, cpuSpent, cpuTime, describeCpu, temporalServer } from './cpu-time.ts';
import { settings } from './settings.ts';
import { percentile, runConcurrently, timed } from './stats.ts';
import { alone, atLeast, compared, heading, ratioAtMost, type Row } from './table.ts';

// POST /schedules (each makes a Temporal Schedule), 8 at a time, next to Temporal creating as many schedules alone,
// in turns; then GET /schedules (a page of 50, run times from the database and the cron) next to
// GET /projects (a page of 50 from the database alone). A workspace has at most the plan's schedules (50 on Growth),
// so the creates go to as many workspaces as that takes, each in turn: one workspace's creates take turns under its
// lock (the count of its schedules), and eight tenants at once is what a busy api sees. The rounds also read where the cores went (bench/cpu-time.ts),
// and what Temporal goes on doing once they are over: a create answers before the server has done all it makes.

const concurrency = 8;
// Once a year on 1 January, so no run fires (and competes for the machine) while we measure.
const cronOf = (index: number) => `${index % 60} ${index % 24} 1 1 *`;

export async function benchSchedules(stack: BenchStack): Promise<Row[]> {
  for (let index = 0; index < 50; index += 1) await stack.call('POST', '/projects', { name: `Project ${index}` });
  const total = settings.schedules;
  // The creates and their floor take turns, a round of each at a time, as the other rates do: a slow spell of this
  // shared machine then lands on both alike. Each round's IDs go on from the last; the table shows the medians.
  const perRound = Math.ceil(total / settings.rounds);
  const cpu = { temporalAlone: new Map<string, number>(), created: new Map<string, number>() };
  const rate = async (from: number, create: (index: number) => Promise<unknown>, spent?: Map<string, number>) => {
    const before = cpuTime(stack.serverPids);
    const seconds = (await timed(() => runConcurrently(perRound, concurrency, (index) => create(from + index)))).ms / 1000;
    if (spent) addSpent(spent, cpuSpent(before, cpuTime(stack.serverPids)));
    return perRound / seconds;
  };
  const createAlone = (index: number) =>
    stack.temporal.schedule.create({
      scheduleId: `bench-floor-${index}`,
      spec: { cronExpressions: [cronOf(index)], timezone: 'UTC' },
      action: { type: 'startWorkflow', workflowType: 'emptyWorkflow', workflowId: `bench-floor-run-${index}`, taskQueue: stack.floorTaskQueue, args: [] },
    });
  const creates = (settings.rounds + 1) * perRound;
  const callers = [stack.call];
  while (callers.length * planRules.growth.limits.schedules! < creates) callers.push((await stack.newWorkspace(`Schedules ${callers.length}`)).call);
  const createThroughApi = (index: number) =>
    callers[index % callers.length]!('POST', '/schedules', { name: `Schedule ${index}`, cronExpression: cronOf(index), promptTemplate: 'News of {{date}}' });
  const round = async (from: number, counted = true) =>
    [await rate(from, createAlone, counted ? cpu.temporalAlone : undefined), await rate(from, createThroughApi, counted ? cpu.created : undefined)] as const;
  // A round of each first, not counted: without it, the api's rounds rose 92 → 115/s across a run.
  await round(0, false);
  const rates = { temporalAlone: [] as number[], created: [] as number[] };
  for (let index = 1; index <= settings.rounds; index += 1) {
    const [alone, created] = await round(index * perRound);
    rates.temporalAlone.push(alone);
    rates.created.push(created);
  }
  const [temporalAlone, created] = [rates.temporalAlone, rates.created].map((values) => percentile(values, 50)) as [number, number];
  const countedCreates = settings.rounds * perRound;
  // Every create of the section, the round not counted included, left its share of the work after it.
  const createsMade = (settings.rounds + 1) * perRound * 2;
  // Also the reads below then run on a quiet server.
  const leftOver = await temporalWorkLeft(stack);

  // The reads take turns, sample by sample, so a burst of load from elsewhere lands on both alike rather than on
  // whichever ran during it. The bench's workspace has a full page of schedules (the plan's 50) and of projects.
  const paths = { projects: '/projects?pageSize=50', schedules: '/schedules?pageSize=50' };
  const runs = { projects: [] as number[], schedules: [] as number[] };
  for (const path of Object.values(paths)) await stack.call('GET', path);
  for (let index = 0; index < settings.samples; index += 1) {
    for (const [name, path] of Object.entries(paths) as Array<[keyof typeof paths, string]>) runs[name].push((await timed(() => stack.call('GET', path))).ms);
  }
  const [projects, schedules] = [runs.projects, runs.schedules].map((samples) => percentile(samples, 50)) as [number, number];
  const floor = { value: projects, name: 'GET /projects, page of 50' };
  return [
    heading('schedules'),
    compared(
      `POST /schedules, ${concurrency} at a time (median of ${settings.rounds} rounds)`,
      created,
      '/s',
      { value: temporalAlone, name: 'Temporal schedule create alone' },
      atLeast(100, '/s'),
    ),
    alone(
      `  each of ${settings.rounds} rounds`,
      rates.created.map((value) => value.toFixed(0)).join(' / '),
      '',
      undefined,
      `(Temporal alone ${rates.temporalAlone.map((value) => value.toFixed(0)).join(' / ')})`,
    ),
    alone('  CPU per create while the rounds ran, through the api', describeCpu([...cpu.created], countedCreates), ''),
    alone('  CPU per create while the rounds ran, Temporal alone', describeCpu([...cpu.temporalAlone], countedCreates), ''),
    alone(
      "  the server's work left when the last round ended",
      leftOver === undefined
        ? 'not measured (no /proc here)'
        : `${leftOver.seconds} s, ${(leftOver.ms / createsMade).toFixed(1)} ms of its CPU per create made`,
      '',
    ),
    compared('GET /schedules page of 50, p50', schedules, 'ms', floor, ratioAtMost(2)),
  ];
}

/**
 * How long the Temporal server goes on working once the creates have all answered, and the CPU it spends meanwhile:
 * whole seconds until one in which it used under a tenth of a core, at most a minute. Undefined without /proc.
 */
async function temporalWorkLeft(stack: BenchStack): Promise<{ seconds: number; ms: number } | undefined> {
  let ms = 0;
  for (let seconds = 1; seconds <= 60; seconds += 1) {
    const before = cpuTime(stack.serverPids);
    if (before.entries.size === 0) return undefined;
    await new Promise((resolveWait) => setTimeout(resolveWait, 1000));
    const spent = cpuSpent(before, cpuTime(stack.serverPids)).find(([group]) => group === temporalServer)?.[1] ?? 0;
    if (spent < 100) return { seconds: seconds - 1, ms };
    ms += spent;
  }
  return { seconds: 60, ms };
}
