import { Project } from '../../adapters/database/entities/project.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { createOnce } from '../idempotency/request-effects.ts';
import { requireQuota } from '../workspaces/plans.ts';
import { lockWorkspace } from '../workspaces/lock-workspace.ts';
import { validateProjectIcon } from './project-icon.ts';

export type CreateProjectInput = { name: string; description?: string; icon?: string; color?: string };

/** `requestKey` names the request's Idempotency-Key (requestFingerprint): a retry gets the project the first send created. */
export async function createProject(deps: Deps, caller: Caller, input: CreateProjectInput, requestKey?: string): Promise<Project> {
  validateProjectIcon(input.icon);
  return deps.orm.em.fork().transactional(async (em) => {
    await lockWorkspace(em, caller.workspaceId);
    const find = (id: string) => em.findOne(Project, { id, workspaceId: caller.workspaceId });
    return createOnce(em, caller.workspaceId, requestKey, { type: 'project', find }, async () => {
      const active = await em.count(Project, { workspaceId: caller.workspaceId, status: 'active' });
      requireQuota(caller.plan, 'activeProjects', active);
      return em.create(Project, {
        workspaceId: caller.workspaceId,
        name: input.name,
        description: input.description ?? null,
        icon: input.icon ?? null,
        color: input.color?.toLowerCase() ?? null,
        status: 'active',
      });
    });
  });
}
