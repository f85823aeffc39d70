import type { BenchStack } from './bench-stack.ts';
import { runConcurrently, timed } from './stats.ts';

// Floors of Temporal itself, taken through the api's own client on the same server as the product's workflows.

export type FloorWorkflow = 'emptyWorkflow' | 'oneActivityWorkflow';

let started = 0;
const run = (stack: BenchStack, type: FloorWorkflow) =>
  stack.temporal.workflow.execute(type, { taskQueue: stack.floorTaskQueue, workflowId: `floor-${type}-${(started += 1)}` });

/** Sequential round trips (start → result), in ms. */
export async function roundTrips(stack: BenchStack, type: FloorWorkflow, count: number): Promise<number[]> {
  const runs: number[] = [];
  for (let index = 0; index < count; index += 1) runs.push((await timed(() => run(stack, type))).ms);
  return runs;
}

/** Workflows completed per second with `concurrency` round trips in flight. */
export async function workflowRate(stack: BenchStack, type: FloorWorkflow, total: number, concurrency: number): Promise<number> {
  const { ms } = await timed(() => runConcurrently(total, concurrency, () => run(stack, type)));
  return total / (ms / 1000);
}
