import { Schedule } from '../../adapters/database/entities/schedule.ts';
import type { Deps } from '../deps.ts';

/** The ids of the workspace's schedules, oldest first. */
export async function scheduleIdsOf(deps: Deps, { workspaceId }: { workspaceId: string }): Promise<string[]> {
  const rows = await deps.orm.em.fork().find(Schedule, { workspaceId }, { fields: ['id'], orderBy: { createdAt: 'asc', id: 'asc' } });
  return rows.map((row) => row.id);
}
