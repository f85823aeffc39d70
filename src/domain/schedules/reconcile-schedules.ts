import { LockMode } from '@mikro-orm/postgresql';
import { ScheduleAlreadyRunning, ScheduleNotFoundError, type ScheduleDescription, type ScheduleSummary } from '@temporalio/client';
import { Schedule } from '../../adapters/database/entities/schedule.ts';
import { messageOf } from '../../common/errors/caught.ts';
import type { Plan } from '../../adapters/database/entities/workspace.ts';
import { scheduleIds } from '../../adapters/temporal/workflow-ids.ts';
import { inTemporal } from '../../adapters/temporal/workflow-gateway.ts';
import type { Deps } from '../deps.ts';
import { plansOf } from '../workspaces/plans-of.ts';
import type { ReconcileReport } from '../../../workflows/contracts/reconcile-schedules.ts';
import {
  createTemporalSchedule,
  deleteTemporalSchedule,
  isOwnedSchedule,
  scheduledGenerationType,
  temporalScheduleOptions,
  updateTemporalSchedule,
} from './temporal-schedule.ts';

/**
 * How recent a change must be for reconcile to leave it alone. A change in flight touches Temporal first and the
 * database after (create: the Temporal Schedule, then the row, bounded by the pool's timeouts to well under a
 * minute), or the database row under its lock (update, delete): past this window both sides have settled. Times
 * come from the api's clock (the row) and Temporal's (its creation), read against the worker's: the hosts' clocks
 * must agree to well within it.
 */
const reconcileGraceMs = 2 * 60_000;

type Outcome = 'created' | 'updated' | 'deleted' | 'skipped' | 'none';

/**
 * Repairs drift between the database (what customers asked for) and Temporal (what runs), the database winning:
 * a schedule without its Temporal Schedule gets one; a Temporal Schedule that differs (cron, paused state, run
 * action) is updated; a Temporal Schedule of ours (memo owner and task queue) without a row is deleted. Run by the
 * `schedules-reconcile` Temporal Schedule (workflows/reconcile-schedules.ts) and `npm run admin -- schedules
 * reconcile`; says what it did.
 *
 * Safe beside the api changing schedules at the same moment: Temporal is listed first and the rows read after, so a
 * schedule created meanwhile either has its row in what we read or is not in the list. Temporal's list is only
 * eventually consistent, so it picks the candidates (its note records the cron and paused state, see noteOf), and
 * each candidate is settled on a fresh read: the row locked (`FOR UPDATE`, as the api's update and delete lock it)
 * and the Temporal Schedule described. A row or Temporal Schedule changed within the grace window is left for the
 * next run. One schedule Temporal refuses to repair is reported in `failed`; the others are still repaired.
 */
export async function reconcileSchedules(deps: Pick<Deps, 'orm' | 'temporal' | 'taskQueue'>, { graceMs = reconcileGraceMs } = {}): Promise<ReconcileReport> {
  const listed = new Map<string, ScheduleSummary>();
  for await (const summary of deps.temporal.schedule.list()) {
    const id = scheduleIds.generationScheduleIdOf(summary.scheduleId);
    if (id && isOwnedSchedule(summary.memo, deps.taskQueue)) listed.set(id, summary);
  }
  const em = deps.orm.em.fork();
  const rows = await em.find(Schedule, {});
  // The plan decides the paused state too (temporalScheduleOptions): a downgraded workspace's schedules stay paused.
  const plans = await plansOf(
    em,
    rows.map((row) => row.workspaceId),
  );
  const report: ReconcileReport = { checked: rows.length, created: [], updated: [], deleted: [], skipped: [], failed: [] };
  const settledBefore = new Date(Date.now() - graceMs);

  const known = new Set(rows.map((row) => row.id));
  const candidates = [
    ...rows.filter((row) => !listed.has(row.id) || listDiffers(listed.get(row.id)!, row, deps.taskQueue, plans.get(row.workspaceId)!)).map((row) => row.id),
    ...[...listed.keys()].filter((id) => !known.has(id)),
  ];
  for (const id of candidates) {
    try {
      const outcome = await repair(deps, id, settledBefore);
      if (outcome !== 'none') report[outcome].push(id);
    } catch (error) {
      report.failed.push({ scheduleId: id, error: messageOf(error) });
    }
  }
  return report;
}

/** Settles one schedule on fresh reads, its row locked until the repair is done. */
function repair(deps: Pick<Deps, 'orm' | 'temporal' | 'taskQueue'>, id: string, settledBefore: Date): Promise<Outcome> {
  const { temporal, taskQueue } = deps;
  return deps.orm.em
    .fork()
    .transactional(async (em) => {
      const row = await em.findOne(Schedule, id, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (row && row.updatedAt > settledBefore) return 'skipped';
      const current = await inTemporal(temporal, 'describe the schedule', () =>
        temporal.schedule
          .getHandle(scheduleIds.generation(id))
          .describe()
          .catch((error: unknown) => {
            if (error instanceof ScheduleNotFoundError) return undefined;
            throw error;
          }),
      );
      if (!row) {
        if (!current || !isOwnedSchedule(current.memo, taskQueue)) return 'none';
        // Created a moment ago by the api, whose row is about to commit.
        if (current.info.createdAt > settledBefore) return 'skipped';
        await inTemporal(temporal, 'delete the schedule', () => deleteTemporalSchedule(temporal, id));
        return 'deleted';
      }
      // Read under the row's lock, as a plan change reads it: a downgrade racing this repair is not undone.
      const plan = (await plansOf(em, [row.workspaceId])).get(row.workspaceId)!;
      if (!current) {
        await inTemporal(temporal, 'create the schedule', () => createTemporalSchedule(temporal, row, taskQueue, plan));
        return 'created';
      }
      if (!differs(current, row, taskQueue, plan)) return 'none';
      await inTemporal(temporal, 'update the schedule', () => updateTemporalSchedule(temporal, row, taskQueue, plan));
      return 'updated';
    })
    .catch((error: unknown) => {
      // Created by another reconcile run or the api since we described it.
      if (error instanceof ScheduleAlreadyRunning) return 'none' as const;
      throw error;
    });
}

/** What the list says of the Temporal Schedule differs from the row (a candidate, to confirm on a fresh read). */
function listDiffers(summary: ScheduleSummary, row: Schedule, taskQueue: string, plan: Plan): boolean {
  const wanted = temporalScheduleOptions(row, taskQueue, plan);
  return (
    summary.state.note !== wanted.state?.note ||
    summary.state.paused !== (wanted.state?.paused ?? false) ||
    summary.action?.workflowType !== scheduledGenerationType
  );
}

/** How the row's Temporal Schedule differs from it. */
function differs(current: ScheduleDescription, row: Schedule, taskQueue: string, plan: Plan): boolean {
  const wanted = temporalScheduleOptions(row, taskQueue, plan);
  const action = current.action.type === 'startWorkflow' ? current.action : undefined;
  return (
    current.state.note !== wanted.state?.note ||
    current.state.paused !== (wanted.state?.paused ?? false) ||
    action?.workflowType !== scheduledGenerationType ||
    action.taskQueue !== taskQueue ||
    JSON.stringify(action.args) !== JSON.stringify(wanted.action.args)
  );
}

export function describeReport(report: ReconcileReport): string {
  const parts = [
    `${report.checked} schedule(s) checked`,
    ...(report.created.length ? [`created in Temporal: ${report.created.join(', ')}`] : []),
    ...(report.updated.length ? [`updated in Temporal: ${report.updated.join(', ')}`] : []),
    ...(report.deleted.length ? [`orphans deleted from Temporal: ${report.deleted.join(', ')}`] : []),
    ...(report.skipped.length ? [`changed within the grace window, left for the next run: ${report.skipped.join(', ')}`] : []),
    ...(report.failed.length ? [`could not be repaired: ${report.failed.map((failure) => `${failure.scheduleId} (${failure.error})`).join(', ')}`] : []),
  ];
  return parts.length === 1 ? `${parts[0]}; no drift.` : `${parts.join('; ')}.`;
}
