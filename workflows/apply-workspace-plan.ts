import { ActivityFailure, log, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/activity-signatures.ts';
import { databaseWork } from './contracts/activity-options.ts';
import type { ApplyWorkspacePlanInput, ApplyWorkspacePlanResult } from './contracts/apply-workspace-plan.ts';

// Our own database and our own Temporal: unbounded only while one of them is down (see databaseWork).
const { scheduleIdsOf, applyPlanToSchedule, stopWorkspaceDeliveries } = proxyActivities<Activities>(databaseWork);

/**
 * What a plan change (`workspace-plan-<workspaceId>`, started once the change has committed) does outside the
 * database: each schedule's Temporal Schedule paused or resumed to match the plan (and the customer's own pause),
 * and, on a plan without webhooks, the workspace's deliveries waiting on the retry ladder woken so that they stop
 * now, logging why, instead of at their next attempt. Each step reads the plan as it is when it runs, so a second
 * change that replaces this run (the ID's conflict policy) leaves everything as the last plan says.
 */
export async function applyWorkspacePlan({ workspaceId }: ApplyWorkspacePlanInput): Promise<ApplyWorkspacePlanResult> {
  const scheduleIds = await scheduleIdsOf({ workspaceId });
  const failed: string[] = [];
  for (const scheduleId of scheduleIds) {
    try {
      await applyPlanToSchedule({ scheduleId });
    } catch (error) {
      // One schedule Temporal refuses for good (a definition it cannot read) must not keep the workspace's other
      // schedules, or its deliveries, on the old plan; the schedules reconcile reports it again on its next run.
      if (!(error instanceof ActivityFailure)) throw error;
      log.warn('schedule not brought in line with the plan', { workspaceId, scheduleId, error: error.cause?.message });
      failed.push(scheduleId);
    }
  }
  const deliveriesStopped = await stopWorkspaceDeliveries({ workspaceId });
  return { schedules: scheduleIds.length, failed, deliveriesStopped };
}
