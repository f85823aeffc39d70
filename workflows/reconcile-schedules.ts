import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { ReconcileReport } from '../src/domain/schedules/reconcile-schedules.ts';
import { scheduleReconcile } from './activity-options.ts';

const { repairScheduleDrift } = proxyActivities<Activities>(scheduleReconcile);

/**
 * Run by the `schedules-reconcile` Temporal Schedule: puts Temporal's schedules back in line with the database (see
 * src/domain/schedules/reconcile-schedules.ts). Its result says what was repaired and what could not be.
 */
export async function reconcileSchedules(): Promise<ReconcileReport> {
  return repairScheduleDrift();
}
