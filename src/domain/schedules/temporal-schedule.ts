import { ScheduleNotFoundError, ScheduleOverlapPolicy, type Client, type ScheduleOptions } from '@temporalio/client';
import type { Schedule } from '../../adapters/database/entities/schedule.ts';
import type { Plan } from '../../adapters/database/entities/workspace.ts';
import { searchAttributes } from '../../adapters/temporal/search-attributes.ts';
import { scheduleIds, workflowIds } from '../../adapters/temporal/workflow-ids.ts';
import { scheduledGeneration } from '../../../workflows/scheduled-generation.ts';
import { hasFeature } from '../workspaces/plans.ts';

/** The workflow type a schedule's Temporal Schedule starts: what reconcile checks a found schedule against. */
export const scheduledGenerationType = scheduledGeneration.name;

// The Temporal side of a schedule: `schedule-<id>`, its cron in UTC, one `scheduledGeneration` run per firing.
// Overlap policy SKIP: a firing while the previous run still works is skipped, not queued, so a slow provider never
// piles runs up. Catch-up window 10 minutes: firings missed while Temporal was down longer than that are skipped.

const overlapPolicy = ScheduleOverlapPolicy.SKIP;
const catchupWindow = '10 minutes';
const owner = 'content-service';

/**
 * What the Temporal Schedule of `schedule` must be, in a workspace on `plan`: paused when the customer paused it or
 * the plan has no schedules (a downgrade keeps the row and the customer's own `isActive`, so an upgrade resumes
 * only what was running). Its memo names the owner, workspace and task queue.
 */
export function temporalScheduleOptions(schedule: Schedule, taskQueue: string, plan: Plan): ScheduleOptions {
  return {
    scheduleId: scheduleIds.generation(schedule.id),
    spec: { cronExpressions: [schedule.cronExpression], timezone: 'UTC' },
    action: {
      type: 'startWorkflow',
      workflowType: scheduledGeneration,
      workflowId: workflowIds.scheduledGeneration(schedule.id),
      taskQueue,
      args: [{ scheduleId: schedule.id }] satisfies Parameters<typeof scheduledGeneration>,
      typedSearchAttributes: [{ key: searchAttributes.workspaceId, value: schedule.workspaceId }],
      staticSummary: `Scheduled generation "${schedule.name}"`,
    },
    policies: { overlap: overlapPolicy, catchupWindow },
    state: { paused: isPaused(schedule, plan), note: noteOf(schedule, plan) },
    // On the schedule itself too, so one visibility query finds a workspace's schedules (operators, tests).
    typedSearchAttributes: [{ key: searchAttributes.workspaceId, value: schedule.workspaceId }],
    memo: { owner, taskQueue, workspaceId: schedule.workspaceId, scheduleId: schedule.id, name: schedule.name },
  };
}

export async function createTemporalSchedule(client: Client, schedule: Schedule, taskQueue: string, plan: Plan): Promise<void> {
  await client.schedule.create(temporalScheduleOptions(schedule, taskQueue, plan));
}

/** Brings the Temporal Schedule in line with `schedule` in a workspace on `plan`: cron, action, memo and paused state. */
export async function updateTemporalSchedule(client: Client, schedule: Schedule, taskQueue: string, plan: Plan): Promise<void> {
  const wanted = temporalScheduleOptions(schedule, taskQueue, plan);
  const handle = client.schedule.getHandle(wanted.scheduleId);
  await handle.update((current) => ({
    ...current,
    spec: wanted.spec,
    action: wanted.action,
    policies: wanted.policies,
    state: { ...current.state, ...wanted.state },
  }));
  const { state } = await handle.describe();
  const paused = isPaused(schedule, plan);
  if (state.paused && !paused) await handle.unpause(noteOf(schedule, plan));
  if (!state.paused && paused) await handle.pause(noteOf(schedule, plan));
}

/** Deletes the Temporal Schedule; one that is already gone counts as deleted. */
export async function deleteTemporalSchedule(client: Client, scheduleId: string): Promise<void> {
  try {
    await client.schedule.getHandle(scheduleIds.generation(scheduleId)).delete();
  } catch (error) {
    if (!(error instanceof ScheduleNotFoundError)) throw error;
  }
}

export function isOwnedSchedule(memo: Record<string, unknown> | undefined, taskQueue: string): boolean {
  return memo?.owner === owner && memo.taskQueue === taskQueue;
}

/**
 * The note shown in the Temporal UI; it also records the cron the schedule was given (Temporal describes its spec
 * in compiled form), which the reconcile step compares.
 */
export function noteOf(schedule: Schedule, plan: Plan): string {
  const state = !schedule.isActive ? 'paused' : isPaused(schedule, plan) ? `paused: not on the ${plan} plan` : 'active';
  return `Content service schedule "${schedule.name}" (${schedule.id}) of workspace ${schedule.workspaceId}: cron "${schedule.cronExpression}" UTC, ${state}`;
}

function isPaused(schedule: Schedule, plan: Plan): boolean {
  return !schedule.isActive || !hasFeature(plan, 'schedules');
}
