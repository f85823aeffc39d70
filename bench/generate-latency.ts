import { createLocalImageProvider } from '../src/generation/local-provider.ts';
import type { BenchStack } from './bench-stack.ts';
import { settings } from './settings.ts';
import { percentile, runConcurrently, steadyRate, timed } from './stats.ts';
import { alone, compared, heading, ratioAtLeast, ratioAtMost, type Row } from './table.ts';
import { cpuSpent, cpuTime, describeCpu } from './cpu-time.ts';
import { generateProfile, type TimedRun } from './generate-profile.ts';
import { describeExecutions, executionsOf } from './temporal-cost.ts';
import { workflowIds } from '../src/temporal/workflow-ids.ts';
import { roundTrips } from './temporal-floor.ts';

// POST /posts/{id}/generate with the local image provider. At concurrency 1 its p50 stands next to the parts it
// cannot avoid: an empty workflow's round trip on the same Temporal plus the local image alone. At concurrency 16
// its rate stands next to the CPU bound: as many renders in flight as requests, in this process as the worker does
// them, with nothing else around them; both rates are steady-state ones (bench/stats.ts). Beside each figure, where
// it goes: the concurrency-1 steps from the workflows' histories (bench/generate-profile.ts), and the CPU that one
// image costs the whole stack at concurrency 16, by thread and server (bench/cpu-time.ts).

const format = '1:1';
const busyConcurrency = 16;

export async function benchGenerate(stack: BenchStack): Promise<Row[]> {
  const { body: project } = await stack.call<{ id: string }>('POST', '/projects', { name: 'Generate' });
  const postIds: string[] = [];
  const newPost = async (index: number) => {
    const { body } = await stack.call<{ id: string }>('POST', '/posts', { title: `Bench post ${index}`, prompt: `A calm sea at dusk, take ${index}`, projectId: project.id });
    postIds.push(body.id);
  };
  const generate = async (postId: string) => {
    const { status } = await stack.call(`POST`, `/posts/${postId}/generate`, { format });
    if (status !== 200) throw new Error(`generate answered ${status}`);
  };
  const provider = createLocalImageProvider();
  let renders = 0;
  const render = () => provider.generate({ prompt: `A calm sea at dusk, floor ${renders}`, format, seed: (renders += 1), colors: {} });

  const busyRequests = busyConcurrency * settings.generatePerSlot;
  await runConcurrently(settings.samples + busyRequests + 5, 8, newPost);
  // Each request generates a post of its own: a post's second generation while one runs would be refused.
  const posts = [...postIds];
  // Warm up every path once (JIT, connection pools, the workflow bundle's caches).
  for (let index = 0; index < 5; index += 1) await generate(posts.pop()!);
  await roundTrips(stack, 'emptyWorkflow', 5);
  await roundTrips(stack, 'oneActivityWorkflow', 5);
  await render();

  const empty = percentile(await roundTrips(stack, 'emptyWorkflow', settings.samples), 50);
  const oneActivity = percentile(await roundTrips(stack, 'oneActivityWorkflow', settings.samples), 50);
  const imageRuns: number[] = [];
  for (let index = 0; index < settings.samples; index += 1) imageRuns.push((await timed(render)).ms);
  const image = percentile(imageRuns, 50);
  const sequentialRuns: TimedRun[] = [];
  const timedGenerate = async (postId: string) => {
    const sentAt = Date.now();
    await generate(postId);
    sequentialRuns.push({ workflowId: workflowIds.postGenerate(postId), sentAt, answeredAt: Date.now() });
  };
  const sequential = percentile(await runConcurrently(settings.samples, 1, () => timedGenerate(posts.pop()!)), 50);

  // Both busy runs also read where the cores went (bench/cpu-time.ts): the render bound is all rendering, so what
  // the generations spend beyond it is the rest of the stack's share.
  const busy = async (action: () => Promise<unknown>) => {
    const before = cpuTime(stack.serverPids);
    const rate = await steadyRate(busyRequests, busyConcurrency, action);
    return { rate, cpu: describeCpu(cpuSpent(before, cpuTime(stack.serverPids)), busyRequests) };
  };
  const renderBound = await busy(render);
  const busyRate = await busy(() => generate(posts.pop()!));

  const cost = await executionsOf(stack, () => generate(postIds[0]!));

  return [
    heading('Temporal floors (sequential round trip, p50)'),
    alone('empty workflow', empty, 'ms'),
    alone('one-activity workflow', oneActivity, 'ms'),
    heading(`generate (local provider, ${format})`),
    alone('local image alone, p50', image, 'ms'),
    compared('generate, concurrency 1, p50', sequential, 'ms', { value: empty + image, name: 'empty workflow + image' }, ratioAtMost(1.3)),
    ...(await generateProfile(stack, sequentialRuns)),
    compared(`generate, concurrency ${busyConcurrency}, images`, busyRate.rate, '/s', { value: renderBound.rate, name: `${busyConcurrency} renders in flight` }, ratioAtLeast(0.7)),
    alone('  CPU per image, rendering alone', renderBound.cpu, ''),
    alone('  CPU per image, generate', busyRate.cpu, ''),
    alone('Temporal cost of one generate', describeExecutions(cost), ''),
  ];
}

