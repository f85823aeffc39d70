import { WithStartWorkflowOperation } from '@temporalio/client';
import type { BenchStack } from './bench-stack.ts';
import { floorUpdate } from './floor-workflows.ts';
import { runConcurrently, timed } from './stats.ts';

// Floors of Temporal itself, taken through the api's own client on the same server as the product's workflows.

export type FloorWorkflow = 'emptyWorkflow' | 'oneActivityWorkflow' | 'updatedWithLocalActivityWorkflow';

let started = 0;
const run = async (stack: BenchStack, type: FloorWorkflow): Promise<void> => {
  const options = { taskQueue: stack.floorTaskQueue, workflowId: `floor-${type}-${(started += 1)}` };
  if (type !== 'updatedWithLocalActivityWorkflow') return stack.temporal.workflow.execute<() => Promise<void>>(type, options);
  // What a publish asks of Temporal: one Update-with-Start, whose answer comes once the run's one task is done.
  const operation = new WithStartWorkflowOperation(type, { ...options, workflowIdConflictPolicy: 'USE_EXISTING' });
  await stack.temporal.workflow.executeUpdateWithStart(floorUpdate, { startWorkflowOperation: operation });
};

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
