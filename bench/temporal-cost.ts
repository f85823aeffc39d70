import type { WorkflowExecutionInfo } from '@temporalio/client';
import type { BenchStack } from './bench-stack.ts';

// What one operation costs in Temporal, counted from the server rather than from our code: every workflow execution
// that started while the operation (and everything it set off) ran, found by start time in Temporal's visibility,
// and the events in each one's history. It reads nothing about how the service names or chains its workflows, so it
// keeps counting right when that changes. The caller makes sure nothing else runs meanwhile.

export type Execution = { type: string; workflowId: string; startTime: Date; historyEvents: number };

const pollMs = 250;

/** Waits until no workflow runs anywhere in the namespace (and visibility has caught up with that). */
export async function waitUntilQuiet(stack: BenchStack, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let quietPolls = 0;
  while (quietPolls < 2) {
    if (Date.now() > deadline) throw new Error('workflows were still running after the time allowed');
    const { count } = await stack.temporal.workflow.count('ExecutionStatus = "Running"');
    quietPolls = count === 0 ? quietPolls + 1 : 0;
    await new Promise((resolveWait) => setTimeout(resolveWait, pollMs));
  }
}

/**
 * Runs `operation` on a quiet Temporal and returns every execution it caused, oldest first (the first one is the
 * workflow the operation itself started), once all of them have closed.
 */
export async function executionsOf(stack: BenchStack, operation: () => Promise<unknown>): Promise<Execution[]> {
  await waitUntilQuiet(stack);
  // A millisecond's margin for visibility's rounding; the previous operation has ended (quiet) before this starts.
  const since = new Date(Date.now() - 1);
  await operation();
  await waitUntilQuiet(stack);
  const infos: WorkflowExecutionInfo[] = [];
  for await (const info of stack.temporal.workflow.list({ query: `StartTime >= "${since.toISOString()}"` })) infos.push(info);
  infos.sort((a, b) => a.startTime.getTime() - b.startTime.getTime());
  return Promise.all(
    infos.map(async (info) => {
      const history = await stack.temporal.workflow.getHandle(info.workflowId, info.runId).fetchHistory();
      return { type: info.type, workflowId: info.workflowId, startTime: info.startTime, historyEvents: history.events?.length ?? 0 };
    }),
  );
}

/** "3 executions; 41 events: postPublication 19, deliverEvent 11, redeliverWebhook 11" */
export function describeExecutions(executions: Execution[]): string {
  return `${executions.length} execution${executions.length === 1 ? '' : 's'}; ${historyEvents(executions)}`;
}

/** History events in all, then per execution grouped by workflow type ("deliverEvent 20×11"). */
export function historyEvents(executions: Execution[]): string {
  const byType = new Map<string, number[]>();
  for (const execution of executions) byType.set(execution.type, [...(byType.get(execution.type) ?? []), execution.historyEvents]);
  const perType = [...byType].map(([type, events]) => {
    const distinct = [...new Set(events)];
    return distinct.length === 1 ? `${type} ${events.length > 1 ? `${events.length}×` : ''}${distinct[0]}` : `${type} ${events.join('/')}`;
  });
  return `${executions.reduce((sum, execution) => sum + execution.historyEvents, 0)} events${perType.length ? `: ${perType.join(', ')}` : ''}`;
}
