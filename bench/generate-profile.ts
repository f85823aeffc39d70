import proto from '@temporalio/proto';
import type { BenchStack } from './bench-stack.ts';
import { percentile } from './stats.ts';
import { alone, type Row } from './table.ts';

// Where a generate's time goes, read from the server's own clock: the history of each timed generate puts a
// timestamp on every step of its workflow, and the benchmark's clock (the same machine's) on the request's two
// ends. Steps are p50s over the requests, so at concurrency 1 they need not add up to the requests' p50.

const { EventType } = proto.temporal.api.enums.v1;

/** One timed request: when it was sent and answered (epoch ms) and the workflow it ran. */
export type TimedRun = { workflowId: string; sentAt: number; answeredAt: number };

type Step = { name: string; from: (at: Stamps) => number | undefined; to: (at: Stamps) => number | undefined };
type Stamps = { sentAt: number; answeredAt: number; events: Array<{ type: number; at: number }> };

const eventAt =
  (type: number, nth = 0) =>
  (at: Stamps) =>
    at.events.filter((event) => event.type === type)[nth]?.at;

// A step whose events a run lacks is left out of that run: a generation drawn by the local renderer runs its image
// as a local activity inside the first workflow task, so it has no activity task and no second workflow task.
const steps: Step[] = [
  { name: 'api before the start (HTTP, auth, lookup, start)', from: (at) => at.sentAt, to: eventAt(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED) },
  {
    name: 'start → first workflow task picked up',
    from: eventAt(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED),
    to: eventAt(EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED),
  },
  {
    name: "first workflow task (with a local activity's image)",
    from: eventAt(EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED),
    to: eventAt(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED),
  },
  {
    name: 'activity (lookup, image, storage, save)',
    from: eventAt(EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED),
    to: eventAt(EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED),
  },
  { name: 'second workflow task', from: eventAt(EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED), to: eventAt(EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, 1) },
  { name: 'workflow end → answer (reload, respond)', from: eventAt(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED), to: (at) => at.answeredAt },
];

/** A titled block of rows, one per step; read the histories before anything starts a workflow with the same ID again. */
export async function generateProfile(stack: BenchStack, title: string, runs: TimedRun[]): Promise<Row[]> {
  const stamped: Stamps[] = await Promise.all(
    runs.map(async (run) => {
      const history = await stack.temporal.workflow.getHandle(run.workflowId).fetchHistory();
      const events = (history.events ?? []).map((event) => ({ type: event.eventType ?? 0, at: epochMs(event.eventTime) }));
      return { sentAt: run.sentAt, answeredAt: run.answeredAt, events };
    }),
  );
  return [
    alone(`  ${title}`, '', ''),
    ...steps.flatMap((step) => {
      const durations = stamped.flatMap((at) => {
        const [from, to] = [step.from(at), step.to(at)];
        return from === undefined || to === undefined ? [] : [to - from];
      });
      if (durations.length === 0) return [];
      const runs = durations.length === stamped.length ? '' : `, ${durations.length} of ${stamped.length} runs`;
      return [alone(`    ${step.name}, p50`, percentile(durations, 50), 'ms', undefined, `(p90 ${percentile(durations, 90).toFixed(0)} ms${runs})`)];
    }),
  ];
}

function epochMs(time: proto.temporal.api.history.v1.IHistoryEvent['eventTime']): number {
  return Number(time?.seconds ?? 0) * 1000 + Math.floor((time?.nanos ?? 0) / 1e6);
}
