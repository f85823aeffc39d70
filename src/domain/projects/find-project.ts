import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { Project } from '../../adapters/database/entities/project.ts';
import { notFound } from '../../common/errors/app-error.ts';

/** The caller's project or a 404; another workspace's project is indistinguishable from a missing one. */
export async function findProject(em: EntityManager, workspaceId: string, id: string, options: { lock?: boolean } = {}): Promise<Project> {
  const project = await em.findOne(Project, { id, workspaceId }, options.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (!project) throw notFound(`Project ${id}`);
  return project;
}
