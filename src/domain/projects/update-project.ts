import { Project, type ProjectStatus } from '../../adapters/database/entities/project.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { requireQuota } from '../workspaces/plans.ts';
import { lockWorkspace } from '../workspaces/lock-workspace.ts';
import { findProject } from '../find-in-workspace.ts';
import { validateProjectIcon } from './project-icon.ts';

export type UpdateProjectInput = {
  name?: string;
  description?: string | null;
  status?: ProjectStatus;
  icon?: string | null;
  color?: string | null;
};

export async function updateProject(deps: Deps, caller: Caller, id: string, input: UpdateProjectInput): Promise<Project> {
  validateProjectIcon(input.icon);
  return deps.orm.em.fork().transactional(async (em) => {
    await lockWorkspace(em, caller.workspaceId);
    const project = await findProject(em, caller.workspaceId, id);
    if (input.status === 'active' && project.status !== 'active') {
      // Re-activating an archived project takes a slot like creating one does.
      const active = await em.count(Project, { workspaceId: caller.workspaceId, status: 'active' });
      requireQuota(caller.plan, 'activeProjects', active);
    }
    if (input.name !== undefined) project.name = input.name;
    if (input.description !== undefined) project.description = input.description;
    if (input.status !== undefined) project.status = input.status;
    if (input.icon !== undefined) project.icon = input.icon;
    if (input.color !== undefined) project.color = input.color?.toLowerCase() ?? null;
    return project;
  });
}
