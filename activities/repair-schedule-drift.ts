import { log } from '@temporalio/activity';
import { describeReport, reconcileSchedules } from '../src/domain/schedules/reconcile-schedules.ts';
import type { ReconcileReport } from '../workflows/contracts/reconcile-schedules.ts';
import type { Deps } from '../src/domain/deps.ts';
import { heartbeatingOnAClock } from './heartbeat-on-a-clock.ts';

/** One reconcile of every schedule; logs what it repaired, and each schedule Temporal refused, with its reason. */
export async function repairScheduleDrift(deps: Deps): Promise<ReconcileReport> {
  const report = await heartbeatingOnAClock(() => reconcileSchedules(deps));
  const repaired = report.created.length + report.updated.length + report.deleted.length;
  if (repaired > 0 || report.skipped.length > 0)
    log.info(describeReport(report), { created: report.created, updated: report.updated, deleted: report.deleted, skipped: report.skipped });
  for (const failure of report.failed) log.warn('schedule could not be reconciled', failure);
  return report;
}
