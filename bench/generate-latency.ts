import type { BenchStack } from './bench-stack.ts';
import { settings } from './settings.ts';
import { percentile, runConcurrently, steadyRate, timed } from './stats.ts';
import { alone, compared, heading, none, ratioAtLeast, ratioAtMost, type Row } from './table.ts';
import { addSpent, cpuPerOperation, cpuSpent, cpuTime, describeCpu } from './cpu-time.ts';
import { generateProfile, type TimedRun } from './generate-profile.ts';
import { describeExecutions, executionsOf } from './temporal-cost.ts';
import { workflowIds } from '../src/adapters/temporal/workflow-ids.ts';
import { roundTrips } from './temporal-floor.ts';
import { sandboxCallCost } from './sandbox-calls.ts';
import sharp from 'sharp';
import { postFormats, type PostFormat } from '../src/adapters/artwork/post-formats.ts';
import { floorRenders, startRenderBound, type RenderBound } from './render-bound.ts';

// POST /posts/{id}/generate with the local image provider. At concurrency 1 its p50 stands next to the parts it cannot
// avoid: an empty workflow's round trip on the same Temporal plus the local image alone. At concurrency 16 its rate
// stands next to the CPU bound: as many renders in flight as requests, in this process as the worker does them, with
// nothing else around them, on a thread of their own (bench/render-bound.ts); both rates are steady-state ones
// (bench/stats.ts), medians of BENCH_ROUNDS rounds. Floors and figures are measured in turns (see below). Beside each
// figure, where it goes: each step's p50 from the workflows' histories (bench/generate-profile.ts), at both
// concurrencies, and the CPU that one image costs the whole stack at concurrency 16, by thread and server
// (bench/cpu-time.ts); and what each of the SDK's calls into the workflow sandbox costs (bench/sandbox-calls.ts).

const format: PostFormat = '1:1';
export const busyConcurrency = 16;

export async function benchGenerate(stack: BenchStack): Promise<Row[]> {
  const renderBound = startRenderBound(format);
  try {
    return await measure(stack, renderBound);
  } finally {
    await renderBound.stop();
  }
}

/**
 * The requests this section times, in a project of their own: `newPost` creates a post to generate (a post's second
 * generation while one runs would be refused, so each request takes a post of its own), `generate` generates it and
 * throws unless the image came back (200); `generated` lists the posts generated, for the image check. Also the load
 * of the memory section (bench/memory.ts).
 */
export async function generateRequests(stack: BenchStack, projectName: string) {
  const { body: project } = await stack.call<{ id: string }>('POST', '/projects', { name: projectName });
  const newPost = async (index: number): Promise<string> => {
    const { body } = await stack.call<{ id: string }>('POST', '/posts', {
      title: `Bench post ${index}`,
      prompt: `A calm sea at dusk, take ${index}`,
      projectId: project.id,
    });
    return body.id;
  };
  const generated: string[] = [];
  const generate = async (postId: string) => {
    const { status } = await stack.call(`POST`, `/posts/${postId}/generate`, { format });
    if (status !== 200) throw new Error(`generate answered ${status}`);
    generated.push(postId);
  };
  return { newPost, generate, generated };
}

async function measure(stack: BenchStack, renderBound: RenderBound): Promise<Row[]> {
  const requests = await generateRequests(stack, 'Generate');
  const { generate, generated } = requests;
  const postIds: string[] = [];
  const newPost = async (index: number) => {
    postIds.push(await requests.newPost(index));
  };
  const timedGenerate = async (postId: string, into: TimedRun[]) => {
    const sentAt = Date.now();
    await generate(postId);
    into.push({ workflowId: workflowIds.postGenerate(postId), sentAt, answeredAt: Date.now() });
  };
  // At concurrency 1 the floor renders on this thread, as the worker's activity does; one at a time, it leaves no
  // round's worth of garbage behind.
  const render = floorRenders(format);

  const busyRequests = busyConcurrency * settings.generatePerSlot;
  await runConcurrently(settings.samples + (settings.rounds + 1) * busyRequests + 5, 8, newPost);
  // Each request generates a post of its own: a post's second generation while one runs would be refused.
  const posts = [...postIds];
  // Warm up every path once (JIT, connection pools, the workflow bundle's caches).
  for (let index = 0; index < 5; index += 1) await generate(posts.pop()!);
  await roundTrips(stack, 'emptyWorkflow', 5);
  await roundTrips(stack, 'oneActivityWorkflow', 5);
  await render();

  // The floors and the figure take turns, one sample of each at a time (and, at concurrency 16, one round of each):
  // this shared machine's slow and fast spells then fall on both sides of a ratio alike.
  const runs = { empty: [] as number[], oneActivity: [] as number[], image: [] as number[], generate: [] as number[] };
  const sequentialRuns: TimedRun[] = [];
  for (let index = 0; index < settings.samples; index += 1) {
    runs.empty.push(...(await roundTrips(stack, 'emptyWorkflow', 1)));
    runs.oneActivity.push(...(await roundTrips(stack, 'oneActivityWorkflow', 1)));
    runs.image.push((await timed(render)).ms);
    runs.generate.push((await timed(() => timedGenerate(posts.pop()!, sequentialRuns))).ms);
  }
  const [empty, oneActivity, image, sequential] = [runs.empty, runs.oneActivity, runs.image, runs.generate].map((values) => percentile(values, 50)) as [
    number,
    number,
    number,
    number,
  ];

  // Both busy runs also read where the cores went (bench/cpu-time.ts): the render bound is all rendering, so what
  // the generations spend beyond it is the rest of the stack's share.
  const rates = { renderBound: [] as number[], generate: [] as number[] };
  const busyRuns: TimedRun[] = [];
  // Beside them, what Temporal alone costs the stack, measured the same way: a one-activity workflow with no image
  // and no database, the part of a generate's CPU that any workflow of its shape pays.
  const cpu = { renderBound: new Map<string, number>(), generate: new Map<string, number>(), oneActivity: new Map<string, number>() };
  const busy = async (round: () => Promise<number>, into: number[], spent: Map<string, number>) => {
    const before = cpuTime(stack.serverPids);
    into.push(await round());
    addSpent(spent, cpuSpent(before, cpuTime(stack.serverPids)));
  };
  const renderRound = () => renderBound.round(busyRequests, busyConcurrency);
  const steady = (action: () => Promise<unknown>) => () => steadyRate(busyRequests, busyConcurrency, action);
  // A round of renders and generates first, not counted, as the schedules' rates have: the first burst at
  // concurrency 16 grows the connection pool that the sequential runs above never needed.
  await renderRound();
  await steady(() => generate(posts.pop()!))();
  for (let round = 0; round < settings.rounds; round += 1) {
    await busy(renderRound, rates.renderBound, cpu.renderBound);
    await busy(
      steady(() => timedGenerate(posts.pop()!, busyRuns)),
      rates.generate,
      cpu.generate,
    );
    await busy(
      steady(() => roundTrips(stack, 'oneActivityWorkflow', 1)),
      [],
      cpu.oneActivity,
    );
  }
  const median = (values: number[]) => percentile(values, 50);
  const busyCount = settings.rounds * busyRequests;

  // A warm-up post's generation again: the profiles read their posts' latest runs, and none reads this one's.
  const cost = await executionsOf(stack.scope, () => generate(postIds.at(-1)!));
  const wrongImages = await checkImages(stack, [...new Set(generated)]);
  const sandbox = sandboxCallCost();
  // What the rate could reach were a generate nothing but its render and a workflow of Temporal's (the one-activity
  // workflow, which pays a hop through the task queue that a generate's local activity does not), and what a
  // generate spends beyond both: the share of the stack that is ours to cut.
  const perImage = {
    render: cpuPerOperation(cpu.renderBound, busyCount),
    generate: cpuPerOperation(cpu.generate, busyCount),
    workflow: cpuPerOperation(cpu.oneActivity, busyCount),
  };
  const ceiling =
    perImage.render > 0
      ? ([
          (perImage.render / (perImage.render + perImage.workflow)).toFixed(2),
          `(a generate spends ${(perImage.generate - perImage.render - perImage.workflow).toFixed(0)} ms beyond both)`,
        ] as const)
      : (['not measured (no /proc here)', ''] as const);

  return [
    heading('Temporal floors (sequential round trip, p50)'),
    alone('empty workflow', empty, 'ms'),
    alone('one-activity workflow', oneActivity, 'ms'),
    heading(`generate (local provider, ${format}; floors and figures in turns, concurrency 16: median of ${settings.rounds} rounds)`),
    alone('local image alone, p50', image, 'ms'),
    compared('generate, concurrency 1, p50', sequential, 'ms', { value: empty + image, name: 'empty workflow + image' }, ratioAtMost(1.3)),
    ...(await generateProfile(stack, `where it goes (all ${settings.samples} requests)`, sequentialRuns)),
    compared(
      `generate, concurrency ${busyConcurrency}, images`,
      median(rates.generate),
      '/s',
      { value: median(rates.renderBound), name: `${busyConcurrency} renders in flight` },
      ratioAtLeast(0.7),
    ),
    alone(
      `  each of ${settings.rounds} rounds`,
      rates.generate.map((rate) => rate.toFixed(1)).join(' / '),
      '',
      undefined,
      `(renders ${rates.renderBound.map((rate) => rate.toFixed(1)).join(' / ')})`,
    ),
    alone('  CPU per image, rendering alone', describeCpu([...cpu.renderBound], busyCount, 10), ''),
    alone('  CPU per image, generate', describeCpu([...cpu.generate], busyCount, 10), ''),
    alone(`  CPU per one-activity workflow, ${busyConcurrency} at a time`, describeCpu([...cpu.oneActivity], busyCount, 10), ''),
    alone('  ceiling with nothing of ours: render ÷ (render + that workflow)', ceiling[0], '', undefined, ceiling[1]),
    ...(await generateProfile(stack, `where it goes (all ${busyCount} requests, ramp-up and drain included)`, busyRuns)),
    alone(
      `generated posts without a real ${postFormats[format].width}×${postFormats[format].height} image (of ${new Set(generated).size})`,
      wrongImages.length,
      '',
      none(),
      wrongImages.length > 0 ? `(${wrongImages.slice(0, 3).join('; ')})` : '',
    ),
    alone('Temporal cost of one generate', describeExecutions(cost), ''),
    alone(
      'a no-op call into a workflow sandbox, per call',
      `${sandbox.withTimeout.toFixed(0)} µs`,
      '',
      undefined,
      `(${sandbox.without.toFixed(1)} µs without the deadlock timeout; the difference is Node's watchdog thread)`,
    ),
  ];
}

/**
 * What is wrong with the generated posts' images: each post's image, fetched by the URL the API hands out, must
 * decode whole (a truncated file fails) to the size of the format asked for.
 */
async function checkImages(stack: BenchStack, postIds: string[]): Promise<string[]> {
  const { width, height } = postFormats[format];
  const problems: string[] = [];
  await runConcurrently(postIds.length, 4, async (index) => {
    const postId = postIds[index]!;
    const { body: post } = await stack.call<{ imageUrl?: string | null }>('GET', `/posts/${postId}`);
    if (!post.imageUrl) return void problems.push(`${postId}: no image`);
    const answer = await fetch(post.imageUrl);
    if (!answer.ok) return void problems.push(`${postId}: its image answered ${answer.status}`);
    const decoded = await sharp(Buffer.from(await answer.arrayBuffer()), { failOn: 'truncated' })
      .raw()
      .toBuffer({ resolveWithObject: true })
      .then(
        ({ info }) => info,
        () => undefined,
      );
    if (!decoded) problems.push(`${postId}: its image does not decode`);
    else if (decoded.width !== width || decoded.height !== height) problems.push(`${postId}: ${decoded.width}×${decoded.height}`);
  });
  return problems;
}
