import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/activity-signatures.ts';
import { scheduleReconcile } from './contracts/activity-options.ts';
import type { ReconcileReport } from './contracts/reconcile-schedules.ts';

const { repairScheduleDrift } = proxyActivities<Activities>(scheduleReconcile);

/**
 * Run by the `schedules-reconcile` Temporal Schedule: puts Temporal's schedules back in line with the database (see
 * src/domain/schedules/reconcile-schedules.ts). Its result says what was repaired and what could not be.
 */
export async function reconcileSchedules(): Promise<ReconcileReport> {
  return repairScheduleDrift();
}
