import { Workspace, type Plan } from '../../data/entities/workspace.ts';
import type { Database } from '../../data/orm.ts';
import { notFound } from '../../errors/app-error.ts';

/**
 * Operator action. Downgrading keeps existing projects and brand kits: limits apply to what is created or
 * re-activated from then on, so nobody loses data by changing plan.
 */
export async function changePlan(orm: Database, workspaceId: string, plan: Plan): Promise<Workspace> {
  return orm.em.fork().transactional(async (em) => {
    const workspace = await em.findOne(Workspace, workspaceId);
    if (!workspace) throw notFound(`Workspace ${workspaceId}`);
    workspace.plan = plan;
    return workspace;
  });
}
