import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type ScheduleDescription, type ScheduleOptions } from '@temporalio/client';
import { msToNumber } from '@temporalio/common/lib/time.js';
import { scheduleIds, workflowIds } from '../src/adapters/temporal/workflow-ids.ts';
import type { Logger } from '../src/logger.ts';
import { sweepOrphanedObjects } from '../workflows/clean-up-orphaned-objects.ts';
import { reconcileSchedules } from '../workflows/reconcile-schedules.ts';
import { sweepEvents } from '../workflows/sweep-events.ts';

/**
 * The Temporal Schedules the service relies on: the storage sweep, the safety net that deletes orphaned objects
 * whose cleanup workflow never started (a crash right after commit); the event sweep, the same net for events never
 * handed to their delivery; and the schedules reconcile, which repairs drift between customers' schedules and
 * Temporal. Singletons of the namespace, each starting one workflow at a time (overlap SKIP).
 */
function serviceSchedules(taskQueue: string) {
  return [
    serviceSchedule(scheduleIds.storageSweep, '15 minutes', taskQueue, {
      workflowType: sweepOrphanedObjects,
      workflowId: workflowIds.storageSweep(),
      args: [],
      staticSummary: 'Storage sweep: delete every orphaned object whose grace period is over',
      purpose: 'Deletes orphaned objects from storage (content-service)',
    }),
    // Every minute: an event waits for it only after an outage or a crash, and a customer waits for the event.
    serviceSchedule(scheduleIds.eventSweep, '1 minute', taskQueue, {
      workflowType: sweepEvents,
      workflowId: workflowIds.eventSweep(),
      args: [],
      staticSummary: 'Event sweep: hand every event nobody handed over to its delivery',
      purpose: 'Hands events never handed over to their webhook deliveries (content-service)',
    }),
    serviceSchedule(scheduleIds.schedulesReconcile, '5 minutes', taskQueue, {
      workflowType: reconcileSchedules,
      workflowId: workflowIds.schedulesReconcile(),
      args: [],
      staticSummary: "Schedules reconcile: put Temporal's schedules back in line with the database",
      purpose: "Repairs drift between customers' schedules and Temporal (content-service)",
    }),
  ];
}

type Action = {
  workflowType: typeof sweepOrphanedObjects | typeof sweepEvents | typeof reconcileSchedules;
  workflowId: string;
  args: [];
  staticSummary: string;
  purpose: string;
};

function serviceSchedule(scheduleId: string, every: string, taskQueue: string, { purpose, ...action }: Action): ScheduleOptions {
  return {
    scheduleId,
    spec: { intervals: [{ every }] },
    action: { type: 'startWorkflow', taskQueue, ...action },
    policies: { overlap: ScheduleOverlapPolicy.SKIP },
    memo: { purpose },
  };
}

/**
 * Creates each service schedule, or updates it where it differs from this code (its interval, workflow or task
 * queue changed). Run at every worker start-up, so N workers starting at once all run it: creating is atomic in
 * Temporal (one worker creates, the others hear it exists), and every worker of a release writes the same
 * definition, so concurrent updates agree and a worker that finds the schedule as wanted writes nothing. During a
 * rolling deploy that changes a definition, the last worker to start wins, which is the new release once it is out.
 * Each schedule on its own: one that fails is thrown after the others were tried.
 */
export async function ensureServiceSchedules(client: Client, taskQueue: string, logger: Logger): Promise<void> {
  const failures: unknown[] = [];
  for (const wanted of serviceSchedules(taskQueue)) {
    await ensureSchedule(client, wanted, logger).catch((error: unknown) => failures.push(error));
  }
  if (failures.length > 0) throw new AggregateError(failures, `${failures.length} service schedule(s) could not be created or updated`);
}

async function ensureSchedule(client: Client, wanted: ScheduleOptions, logger: Logger): Promise<void> {
  try {
    await client.schedule.create(wanted);
    logger.info({ scheduleId: wanted.scheduleId }, 'schedule created');
    return;
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
  const handle = client.schedule.getHandle(wanted.scheduleId);
  if (!differs(await handle.describe(), wanted)) return;
  await handle.update((current) => ({ ...current, spec: wanted.spec, action: wanted.action, policies: { ...current.policies, ...wanted.policies } }));
  logger.info({ scheduleId: wanted.scheduleId }, 'schedule updated');
}

function differs(current: ScheduleDescription, wanted: ScheduleOptions): boolean {
  const every = (wanted.spec.intervals ?? []).map((interval) => msToNumber(interval.every));
  const action = current.action.type === 'startWorkflow' ? current.action : undefined;
  const wantedType = typeof wanted.action.workflowType === 'string' ? wanted.action.workflowType : wanted.action.workflowType.name;
  return (
    JSON.stringify((current.spec.intervals ?? []).map((interval) => msToNumber(interval.every))) !== JSON.stringify(every) ||
    action?.workflowType !== wantedType ||
    action.taskQueue !== wanted.action.taskQueue ||
    action.workflowId !== wanted.action.workflowId ||
    current.policies.overlap !== wanted.policies?.overlap
  );
}
