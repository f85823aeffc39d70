import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { scheduleIds, workflowIds } from '../src/temporal/workflow-ids.ts';
import type { Logger } from '../src/logger.ts';
import { sweepOrphanedObjects } from '../workflows/clean-up-orphaned-objects.ts';

/**
 * The Temporal Schedules the service relies on, created at worker start-up when missing. Today: the storage sweep,
 * the safety net that deletes orphaned objects whose cleanup workflow never started (a crash right after commit).
 */
export async function ensureServiceSchedules(client: Client, taskQueue: string, logger: Logger): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: scheduleIds.storageSweep,
      spec: { intervals: [{ every: '15 minutes' }] },
      action: {
        type: 'startWorkflow',
        workflowType: sweepOrphanedObjects,
        workflowId: workflowIds.storageSweep(),
        taskQueue,
        args: [],
        staticSummary: 'Storage sweep: delete every orphaned object whose grace period is over',
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
      memo: { purpose: 'Deletes orphaned objects from storage (content-service)' },
    });
    logger.info({ scheduleId: scheduleIds.storageSweep }, 'schedule created');
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
}
