import type { Project } from '../../data/entities/project.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { findProject } from './find-project.ts';

export function getProject(deps: Deps, caller: Caller, id: string): Promise<Project> {
  return findProject(deps.orm.em.fork(), caller.workspaceId, id);
}
