import type { EntityManager } from '@mikro-orm/postgresql';
import type { Plan } from '../../adapters/database/entities/workspace.ts';
import { WorkspaceEvent } from '../../adapters/database/entities/workspace-event.ts';

/**
 * The event an attempt delivers, with its workspace's plan (which decides whether webhooks may run at all), in one
 * read instead of two. Null when the event is gone.
 */
export async function eventToDeliver(em: EntityManager, eventId: string): Promise<{ event: WorkspaceEvent; plan: Plan } | null> {
  const [row] = await em.execute<Array<Record<string, unknown> & { workspace_plan: Plan }>>(
    'select e.*, w.plan as workspace_plan from events e join workspaces w on w.id = e.workspace_id where e.id = ?',
    [eventId],
  );
  if (!row) return null;
  const { workspace_plan: plan, ...columns } = row;
  return { event: em.map(WorkspaceEvent, columns), plan };
}
