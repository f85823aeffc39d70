import { BrandKit } from '../../data/entities/brand-kit.ts';
import { Project } from '../../data/entities/project.ts';
import { Workspace } from '../../data/entities/workspace.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { planRules } from './plans.ts';

export type WorkspaceOverview = {
  workspace: Workspace;
  limits: (typeof planRules)[keyof typeof planRules]['limits'];
  features: (typeof planRules)[keyof typeof planRules]['features'];
  usage: { activeProjects: number; brandKits: number };
};

/** The caller's workspace with its plan, limits and how much of them is used. */
export async function getWorkspace(deps: Deps, caller: Caller): Promise<WorkspaceOverview> {
  const em = deps.orm.em.fork();
  const workspace = await em.findOneOrFail(Workspace, caller.workspaceId);
  const activeProjects = await em.count(Project, { workspaceId: caller.workspaceId, status: 'active' });
  const brandKits = await em.count(BrandKit, { workspaceId: caller.workspaceId });
  const rules = planRules[workspace.plan];
  return { workspace, limits: rules.limits, features: rules.features, usage: { activeProjects, brandKits } };
}
