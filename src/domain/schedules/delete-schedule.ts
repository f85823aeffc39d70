import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { requireFeature } from '../workspaces/plans.ts';
import { findSchedule } from '../find-in-workspace.ts';
import { inTemporal } from '../../adapters/temporal/workflow-gateway.ts';
import { deleteTemporalSchedule } from './temporal-schedule.ts';

/** Deletes the schedule and its Temporal Schedule together (runs in progress finish; no new ones start). */
export async function deleteSchedule(deps: Deps, caller: Caller, id: string): Promise<void> {
  requireFeature(caller.plan, 'schedules');
  await deps.orm.em.fork().transactional(async (em) => {
    const row = await findSchedule(em, caller.workspaceId, id, { lock: true });
    em.remove(row);
    await inTemporal(deps.temporal, 'accept the schedule change', () => deleteTemporalSchedule(deps.temporal, row.id));
  });
}
