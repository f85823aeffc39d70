import type { BenchStack } from './bench-stack.ts';
import { addSpent, cpuSpent, cpuTime, describeCpu } from './cpu-time.ts';
import { settings } from './settings.ts';
import { percentile, runConcurrently, timed } from './stats.ts';
import { alone, compared, heading, ratioAtLeast, type Row } from './table.ts';
import { waitUntilQuiet } from './temporal-cost.ts';
import { workflowRate } from './temporal-floor.ts';

// The top of the hour: BENCH_BURST posts scheduled for the same second (POST /posts/{id}/schedule), how late each
// is published and how fast the burst drains, next to the rates it should be held to, measured in the same run in
// turns: publishing now (POST /posts/{id}/publish, 8 at a time), one-activity workflows, and the shape a
// publication has in Temporal (Update-with-Start of a workflow whose update runs a local activity). A burst that
// loses or doubles a publication fails the bench.

const concurrency = 8;
// Time to a post's publication once the burst is due, beyond which it counts as stuck rather than late.
const stuckAfterMs = 120_000;

export async function benchBurst(stack: BenchStack): Promise<Row[]> {
  const burst = settings.burst;
  const { workspaceId, call } = await stack.newWorkspace('Burst');
  const { body: project } = await call<{ id: string }>('POST', '/projects', { name: 'Burst' });
  const newPosts = async (count: number) => {
    const ids: string[] = [];
    await runConcurrently(count, concurrency, async (index) => {
      ids.push((await call<{ id: string }>('POST', '/posts', { title: `Burst ${index}`, prompt: 'Bench', projectId: project.id })).body.id);
    });
    return ids;
  };
  const publishAll = async (postIds: string[]) => {
    const { ms } = await timed(() => runConcurrently(postIds.length, concurrency, (index) => call('POST', `/posts/${postIds[index]!}/publish`)));
    return postIds.length / (ms / 1000);
  };

  // Warm-up, then the rates in turns.
  await publishAll(await newPosts(concurrency));
  await workflowRate(stack, 'updatedWithLocalActivityWorkflow', concurrency, concurrency);
  const rates = { oneActivity: [] as number[], updatedLocally: [] as number[], publish: [] as number[] };
  // Where the cores go, per workflow or post, until all is quiet again.
  const cpu = { oneActivity: new Map<string, number>(), updatedLocally: new Map<string, number>(), publish: new Map<string, number>() };
  const measured = async <T>(spent: Map<string, number>, work: () => Promise<T>): Promise<T> => {
    const before = cpuTime(stack.serverPids);
    const result = await work();
    await waitUntilQuiet(stack.scope);
    addSpent(spent, cpuSpent(before, cpuTime(stack.serverPids)));
    return result;
  };
  for (let round = 0; round < settings.rounds; round += 1) {
    const posts = await newPosts(settings.events);
    await waitUntilQuiet(stack.scope);
    rates.oneActivity.push(await measured(cpu.oneActivity, () => workflowRate(stack, 'oneActivityWorkflow', settings.workflows, concurrency)));
    rates.updatedLocally.push(
      await measured(cpu.updatedLocally, () => workflowRate(stack, 'updatedWithLocalActivityWorkflow', settings.workflows, concurrency)),
    );
    rates.publish.push(await measured(cpu.publish, () => publishAll(posts)));
  }
  const median = (values: number[]) => percentile(values, 50);
  const publishRate = median(rates.publish);

  const posts = await newPosts(burst);
  await waitUntilQuiet(stack.scope);
  // A whole second far enough ahead for every schedule to be made before it: twice the time publishing them would
  // take (a schedule records its plan, which publishing now skips), and 3 s more.
  const dueAt = Math.ceil((Date.now() + (2 * burst * 1000) / publishRate + 3000) / 1000) * 1000;
  const scheduledAt = new Date(dueAt).toISOString();
  const scheduling = await timed(() => runConcurrently(burst, concurrency, (index) => call('POST', `/posts/${posts[index]!}/schedule`, { scheduledAt })));
  if (Date.now() >= dueAt) throw new Error(`burst: scheduling ${burst} posts took ${(scheduling.ms / 1000).toFixed(1)} s, past the time they were due`);
  await publishedCount(stack, workspaceId, burst + settings.rounds * settings.events + concurrency);
  await waitUntilQuiet(stack.scope);

  const published = await publications(stack, workspaceId, posts);
  check(burst, published);
  const lateness = published.map((post) => post.eventAt - dueAt);
  const drainRate = burst / (Math.max(...lateness) / 1000);
  const shape = `${burst} posts due the same second`;
  return [
    heading(`burst (${shape}; publish and floors 8 at a time, in turns: median of ${settings.rounds} rounds)`),
    alone('one-activity workflows, 8 at a time', median(rates.oneActivity), '/s'),
    alone('Update-with-Start + local activity workflows, 8 at a time', median(rates.updatedLocally), '/s'),
    compared('publish now, posts', publishRate, '/s', { value: median(rates.oneActivity), name: 'one-activity workflows' }, ratioAtLeast(0.75)),
    compared('publish now, posts (the shape of a publication)', publishRate, '/s', {
      value: median(rates.updatedLocally),
      name: 'Update-with-Start + local activity',
    }),
    alone('publish now, each round', rates.publish.map((rate) => rate.toFixed(1)).join(' / '), ''),
    alone('CPU per one-activity workflow', describeCpu([...cpu.oneActivity], settings.workflows * settings.rounds), ''),
    alone('CPU per Update-with-Start + local activity workflow', describeCpu([...cpu.updatedLocally], settings.workflows * settings.rounds), ''),
    alone('CPU per post published now', describeCpu([...cpu.publish], settings.events * settings.rounds), ''),
    alone(`${shape}: scheduled`, burst / (scheduling.ms / 1000), '/s'),
    compared(`${shape}: drained`, drainRate, '/s', { value: publishRate, name: 'publish now' }, ratioAtLeast(0.9)),
    alone(
      `${shape}: lateness p50`,
      percentile(lateness, 50),
      'ms',
      undefined,
      `(p99 ${percentile(lateness, 99).toFixed(0)} ms, max ${Math.max(...lateness).toFixed(0)} ms)`,
    ),
    alone(`${shape}: published once each`, published.length, ''),
  ];
}

type Publication = { postId: string; status: string; events: number; eventAt: number };

/** Waits until the workspace has `count` post.published events, or none came for `stuckAfterMs`. */
async function publishedCount(stack: BenchStack, workspaceId: string, count: number): Promise<void> {
  let seen = -1;
  let progressAt = Date.now();
  for (;;) {
    const [row] = await stack.api.services.orm.em
      .fork()
      .execute<Array<{ count: string }>>(`select count(*) from events where workspace_id = ? and type = 'post.published'`, [workspaceId]);
    const now = Number(row?.count ?? 0);
    if (now >= count) return;
    if (now !== seen) [seen, progressAt] = [now, Date.now()];
    if (Date.now() - progressAt > stuckAfterMs)
      throw new Error(`burst: only ${now - (count - settings.burst)} of ${settings.burst} posts published, none for ${stuckAfterMs / 1000} s`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 250));
  }
}

/** Each burst post's status, its post.published events, and when the first was written (epoch ms). */
async function publications(stack: BenchStack, workspaceId: string, postIds: string[]): Promise<Publication[]> {
  const rows = await stack.api.services.orm.em.fork().execute<Array<{ id: string; status: string; events: string; first_at: Date | null }>>(
    `select p.id, p.status, count(e.id) as events, min(e.created_at) as first_at
       from posts p left join events e on e.post_id = p.id and e.workspace_id = p.workspace_id and e.type = 'post.published'
      where p.workspace_id = ?
      group by p.id, p.status`,
    [workspaceId],
  );
  const burst = new Set(postIds);
  return rows
    .filter((row) => burst.has(row.id))
    .map((row) => ({ postId: row.id, status: row.status, events: Number(row.events), eventAt: row.first_at ? new Date(row.first_at).getTime() : Number.NaN }));
}

/** Every post published, exactly once: anything else fails the bench, naming what went wrong. */
function check(burst: number, published: Publication[]): void {
  const problems = [
    [published.length !== burst, `${published.length} of ${burst} posts found`],
    [published.some((post) => post.status !== 'published'), `${published.filter((post) => post.status !== 'published').length} posts not published`],
    [published.some((post) => post.events === 0), `${published.filter((post) => post.events === 0).length} posts without a post.published event`],
    [published.some((post) => post.events > 1), `${published.filter((post) => post.events > 1).length} posts published twice`],
  ] as const;
  const failed = problems.filter(([failing]) => failing).map(([, text]) => text);
  if (failed.length > 0) throw new Error(`burst: ${failed.join('; ')}`);
}
