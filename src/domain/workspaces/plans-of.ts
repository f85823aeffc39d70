import type { EntityManager } from '@mikro-orm/postgresql';
import { Workspace, type Plan } from '../../adapters/database/entities/workspace.ts';

/** The plan of each of the workspaces, in one read (for work over many rows, such as schedule reconciliation). */
export async function plansOf(em: EntityManager, workspaceIds: readonly string[]): Promise<Map<string, Plan>> {
  const workspaces = await em.find(Workspace, { id: { $in: [...new Set(workspaceIds)] } }, { fields: ['id', 'plan'] });
  return new Map(workspaces.map((workspace) => [workspace.id, workspace.plan]));
}
