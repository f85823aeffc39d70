import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import type proto from '@temporalio/proto';
import type { Config } from '../src/config.ts';
import { taskQueues } from '../src/adapters/temporal/task-queues.ts';
import { costOf, type Cost } from './history-cost.ts';

// What one operation costs in Temporal, counted from the server rather than from our code: every workflow execution
// on the service's task queues that started while the operation (and everything it set off) ran, found by start
// time in Temporal's visibility, and its history (counted by bench/history-cost.ts). It reads nothing about how the
// service names or chains its workflows, so it keeps counting right when that changes. The task queues are the
// service's own (a test file's are random), so other work on the same server is not counted; the caller makes sure
// nothing else of the service's runs meanwhile.

/** Where an operation's executions run: a client and the task queues of the service's workers. */
export type CostScope = { client: Client; taskQueues: string[] };

export type Execution = { type: string; workflowId: string; startTime: Date; history: proto.temporal.api.history.v1.IHistory };

const pollMs = 250;

/** A service's task queues (its main one and the video queue), and any others given. */
export function serviceScope(client: Client, config: Config, others: string[] = []): CostScope {
  return { client, taskQueues: [config.temporal.taskQueue, taskQueues.video(config.temporal.taskQueue), ...others] };
}

/** Waits until no workflow of the scope runs (and visibility has caught up with that). */
export async function waitUntilQuiet(scope: CostScope, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let quietPolls = 0;
  while (quietPolls < 2) {
    if (Date.now() > deadline) throw new Error('workflows were still running after the time allowed');
    const { count } = await scope.client.workflow.count(`ExecutionStatus = "Running" AND ${onTaskQueues(scope)}`);
    quietPolls = count === 0 ? quietPolls + 1 : 0;
    await new Promise((resolveWait) => setTimeout(resolveWait, pollMs));
  }
}

/**
 * Runs `operation` when the scope is quiet and returns every execution it caused, oldest first (the first one is the
 * workflow the operation itself started), once all of them have closed.
 */
export async function executionsOf(scope: CostScope, operation: () => Promise<unknown>, timeoutMs?: number): Promise<Execution[]> {
  await waitUntilQuiet(scope, timeoutMs);
  // A millisecond's margin for visibility's rounding; the previous operation has ended (quiet) before this starts.
  const since = new Date(Date.now() - 1);
  await operation();
  await waitUntilQuiet(scope, timeoutMs);
  const infos: WorkflowExecutionInfo[] = [];
  for await (const info of scope.client.workflow.list({ query: `StartTime >= "${since.toISOString()}" AND ${onTaskQueues(scope)}` })) infos.push(info);
  infos.sort((a, b) => a.startTime.getTime() - b.startTime.getTime());
  return Promise.all(
    infos.map(async (info) => ({
      type: info.type,
      workflowId: info.workflowId,
      startTime: info.startTime,
      history: await scope.client.workflow.getHandle(info.workflowId, info.runId).fetchHistory(),
    })),
  );
}

/** What `operation` costs (see executionsOf). */
export async function costOfOperation(
  scope: CostScope,
  operation: () => Promise<unknown>,
  timeoutMs?: number,
): Promise<{ cost: Cost; executions: Execution[] }> {
  const executions = await executionsOf(scope, operation, timeoutMs);
  return { cost: costOf(executions.map((execution) => execution.history)), executions };
}

/** "3 executions (postPublication, deliverEvent 2×), 7 workflow tasks, 2 activity tasks + 3 local, 41 events, 12 actions" */
export function describeExecutions(executions: Execution[]): string {
  const cost = costOf(executions.map((execution) => execution.history));
  const byType = new Map<string, number>();
  for (const execution of executions) byType.set(execution.type, (byType.get(execution.type) ?? 0) + 1);
  const types = [...byType].map(([type, count]) => `${type}${count > 1 ? ` ${count}×` : ''}`).join(', ');
  return (
    `${plural(cost.workflowExecutions, 'execution')}${types ? ` (${types})` : ''}, ${plural(cost.workflowTasks, 'workflow task')}, ` +
    `${plural(cost.activityTasks, 'activity task')} + ${cost.localActivities} local, ${cost.historyEvents} events, ${plural(cost.billableActions, 'action')}`
  );
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function onTaskQueues(scope: CostScope): string {
  return `(${scope.taskQueues.map((taskQueue) => `TaskQueue = "${taskQueue}"`).join(' OR ')})`;
}
