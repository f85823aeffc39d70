import { scheduleIds } from '../src/adapters/temporal/workflow-ids.ts';
import { planRules } from '../src/domain/workspaces/plans.ts';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { ApiAnswer, ApiCall, BenchStack } from './bench-stack.ts';
import { addSpent, cpuSpent, cpuTime, describeCpu, temporalServer } from './cpu-time.ts';
import { settings } from './settings.ts';
import { percentile, runConcurrently, timed } from './stats.ts';
import { alone, atLeast, compared, heading, none, ratioAtMost, type Row } from './table.ts';

// POST /schedules (each makes a Temporal Schedule), 8 at a time, next to Temporal creating as many schedules alone,
// in turns; then GET /schedules (a page of 50, run times from the database and the cron) next to
// GET /projects (a page of 50 from the database alone). A workspace has at most the plan's schedules (50 on Growth),
// so the creates go to as many workspaces as that takes, each in turn: one workspace's creates take turns under its
// lock (the count of its schedules), and eight tenants at once is what a busy api sees. The rounds also read where the cores went (bench/cpu-time.ts),
// and what Temporal goes on doing once they are over: a create answers before the server has done all it makes.
// Then every create is checked against its row and its Temporal Schedule, and a workspace's pages of GET /schedules
// against its rows. Each run uses workspaces and schedule ids of its own, so `--runs` repeats the same work.

const concurrency = 8;
// Once a year on 1 January, so no run fires (and competes for the machine) while we measure.
const cronOf = (index: number) => `${index % 60} ${index % 24} 1 1 *`;

type Created = { id: string; workspaceId: string; name: string; cronExpression: string };

export async function benchSchedules(stack: BenchStack): Promise<Row[]> {
  const run = randomBytes(3).toString('hex');
  const workspaces = [await stack.newWorkspace(`Schedules ${run} 0`)];
  const reader = workspaces[0]!;
  for (let index = 0; index < 50; index += 1) await reader.call('POST', '/projects', { name: `Project ${index}` });
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
      scheduleId: `bench-floor-${run}-${index}`,
      spec: { cronExpressions: [cronOf(index)], timezone: 'UTC' },
      action: {
        type: 'startWorkflow',
        workflowType: 'emptyWorkflow',
        workflowId: `bench-floor-run-${run}-${index}`,
        taskQueue: stack.floorTaskQueue,
        args: [],
      },
    });
  const creates = (settings.rounds + 1) * perRound;
  while (workspaces.length * planRules.growth.limits.schedules! < creates) workspaces.push(await stack.newWorkspace(`Schedules ${run} ${workspaces.length}`));
  const answered: Created[] = [];
  const createThroughApi = async (index: number) => {
    const { workspaceId, call } = workspaces[index % workspaces.length]!;
    const schedule = { name: `Schedule ${index}`, cronExpression: cronOf(index) };
    const { body } = await call<{ id: string }>('POST', '/schedules', { ...schedule, promptTemplate: 'News of {{date}}' });
    answered.push({ id: body.id, workspaceId, ...schedule });
  };
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
  for (const path of Object.values(paths)) await reader.call('GET', path);
  for (let index = 0; index < settings.samples; index += 1) {
    for (const [name, path] of Object.entries(paths) as Array<[keyof typeof paths, string]>) runs[name].push((await timed(() => reader.call('GET', path))).ms);
  }
  const problems = [...(await checkRows(stack, answered)), ...(await checkPages(stack, reader))];
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
    alone(
      `schedules against their rows and Temporal Schedules (${answered.length} creates), and a workspace's pages: wrong`,
      problems.length,
      '',
      none(),
      problems.length > 0 ? `(${problems.slice(0, 3).join('; ')})` : '',
    ),
  ];
}

/** What is wrong with the creates: each answered one needs its row as asked, active, and its Temporal Schedule. */
async function checkRows(stack: BenchStack, created: Created[]): Promise<string[]> {
  const rows = await withDatabase(stack, (client) =>
    client.query<{ id: string; workspace_id: string; name: string; cron_expression: string; is_active: boolean }>(
      'select id, workspace_id, name, cron_expression, is_active from schedules where workspace_id = any($1)',
      [[...new Set(created.map((schedule) => schedule.workspaceId))]],
    ),
  );
  const byId = new Map(rows.rows.map((row) => [row.id, row]));
  const problems: string[] = [];
  if (new Set(created.map((schedule) => schedule.id)).size !== created.length) problems.push('one id answered twice');
  if (rows.rows.length !== created.length) problems.push(`${rows.rows.length} rows for ${created.length} creates`);
  const wrongRows = created.filter((schedule) => {
    const row = byId.get(schedule.id);
    return !row || row.workspace_id !== schedule.workspaceId || row.name !== schedule.name || row.cron_expression !== schedule.cronExpression || !row.is_active;
  });
  if (wrongRows.length > 0) problems.push(`${wrongRows.length} creates without their row as asked`);
  let withoutSchedule = 0;
  await runConcurrently(created.length, concurrency, async (index) => {
    const handle = stack.temporal.schedule.getHandle(scheduleIds.generation(created[index]!.id));
    if (!(await handle.describe().then(Boolean, () => false))) withoutSchedule += 1;
  });
  if (withoutSchedule > 0) problems.push(`${withoutSchedule} creates without their Temporal Schedule`);
  return problems;
}

/** What is wrong with a workspace's GET /schedules walked by its next links: every row once, newest first. */
async function checkPages(stack: BenchStack, workspace: { workspaceId: string; call: ApiCall }): Promise<string[]> {
  const { rows } = await withDatabase(stack, (client) =>
    client.query<{ id: string }>('select id from schedules where workspace_id = $1 order by created_at desc, id desc', [workspace.workspaceId]),
  );
  const listed: string[] = [];
  let path: string | undefined = '/schedules?pageSize=20';
  while (path && listed.length <= rows.length) {
    const answer: ApiAnswer<Array<{ id: string }>> = await workspace.call('GET', path);
    listed.push(...answer.body.map((item) => item.id));
    path = /<\/api\/v1([^>]+)>; rel="next"/.exec(answer.headers.get('link') ?? '')?.[1];
  }
  return listed.join() === rows.map((row) => row.id).join()
    ? []
    : [`GET /schedules pages listed ${listed.length} schedules, not the workspace's ${rows.length} rows in order`];
}

async function withDatabase<T>(stack: BenchStack, query: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: stack.config.database.url });
  await client.connect();
  try {
    return await query(client);
  } finally {
    await client.end();
  }
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
