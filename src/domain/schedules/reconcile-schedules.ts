import { ScheduleAlreadyRunning, ScheduleNotFoundError, type Client } from '@temporalio/client';
import { Schedule } from '../../data/entities/schedule.ts';
import type { Plan } from '../../data/entities/workspace.ts';
import type { Database } from '../../data/orm.ts';
import { scheduleIds } from '../../temporal/workflow-ids.ts';
import { scheduledGeneration } from '../../../workflows/scheduled-generation.ts';
import { plansOf } from '../workspaces/plans-of.ts';
import { createTemporalSchedule, deleteTemporalSchedule, isOwnedSchedule, temporalScheduleOptions, updateTemporalSchedule } from './temporal-schedule.ts';

export type ReconcileReport = { checked: number; created: string[]; updated: string[]; deleted: string[] };

/**
 * Repairs drift between the database (what customers asked for) and Temporal (what runs), the database winning:
 * a schedule without its Temporal Schedule gets one; a Temporal Schedule that differs (cron, paused state, run
 * action) is updated; a Temporal Schedule of ours (memo owner and task queue) without a row is deleted (found in
 * Temporal's list of schedules, which is eventually consistent: one created a moment ago waits for the next run). Run by
 * `npm run admin -- schedules reconcile` and at worker start-up; says what it did.
 */
export async function reconcileSchedules(orm: Database, temporal: Client, taskQueue: string): Promise<ReconcileReport> {
  const em = orm.em.fork();
  const rows = await em.find(Schedule, {});
  // The plan decides the paused state too (temporalScheduleOptions): a downgraded workspace's schedules stay paused.
  const plans = await plansOf(em, rows.map((row) => row.workspaceId));
  const report: ReconcileReport = { checked: rows.length, created: [], updated: [], deleted: [] };
  const inTemporal = new Map<string, true>();
  for await (const summary of temporal.schedule.list()) {
    const id = scheduleIds.generationScheduleIdOf(summary.scheduleId);
    if (id && isOwnedSchedule(summary.memo, taskQueue)) inTemporal.set(id, true);
  }
  const known = new Set(rows.map((row) => row.id));

  for (const row of rows) {
    const plan = plans.get(row.workspaceId)!;
    const drift = inTemporal.has(row.id) ? await driftOf(temporal, row, taskQueue, plan) : 'missing';
    if (drift === 'missing') {
      // Another worker starting at the same moment may have just created it.
      const created = await createTemporalSchedule(temporal, row, taskQueue, plan).then(
        () => true,
        (error: unknown) => {
          if (error instanceof ScheduleAlreadyRunning) return false;
          throw error;
        },
      );
      if (created) report.created.push(row.id);
    } else if (drift === 'differs') {
      await updateTemporalSchedule(temporal, row, taskQueue, plan);
      report.updated.push(row.id);
    }
  }
  for (const id of inTemporal.keys()) {
    if (known.has(id)) continue;
    await deleteTemporalSchedule(temporal, id);
    report.deleted.push(id);
  }
  return report;
}

/** How the row's Temporal Schedule differs from it; `missing` also when the list still shows one deleted a moment ago. */
async function driftOf(temporal: Client, row: Schedule, taskQueue: string, plan: Plan): Promise<'missing' | 'differs' | 'none'> {
  const wanted = temporalScheduleOptions(row, taskQueue, plan);
  const current = await temporal.schedule.getHandle(wanted.scheduleId).describe().catch((error: unknown) => {
    if (error instanceof ScheduleNotFoundError) return undefined;
    throw error;
  });
  if (!current) return 'missing';
  const action = current.action.type === 'startWorkflow' ? current.action : undefined;
  const differs =
    current.state.note !== wanted.state?.note ||
    current.state.paused !== (wanted.state?.paused ?? false) ||
    action?.workflowType !== scheduledGeneration.name ||
    action.taskQueue !== taskQueue ||
    JSON.stringify(action.args) !== JSON.stringify(wanted.action.args);
  return differs ? 'differs' : 'none';
}

export function describeReport(report: ReconcileReport): string {
  const parts = [
    `${report.checked} schedule(s) checked`,
    ...(report.created.length ? [`created in Temporal: ${report.created.join(', ')}`] : []),
    ...(report.updated.length ? [`updated in Temporal: ${report.updated.join(', ')}`] : []),
    ...(report.deleted.length ? [`orphans deleted from Temporal: ${report.deleted.join(', ')}`] : []),
  ];
  return report.created.length + report.updated.length + report.deleted.length === 0 ? `${parts[0]}; no drift.` : `${parts.join('; ')}.`;
}
