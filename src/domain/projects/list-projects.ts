import { Project, type ProjectStatus } from '../../adapters/database/entities/project.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { pageQuery, toPage, type Page, type PageRequest } from '../paging.ts';

export async function listProjects(deps: Deps, caller: Caller, query: PageRequest & { status?: ProjectStatus | undefined }): Promise<Page<Project>> {
  const rows = await deps.orm.em
    .fork()
    .find(
      Project,
      { workspaceId: caller.workspaceId, ...(query.status ? { status: query.status } : {}) },
      { orderBy: { createdAt: 'desc', id: 'desc' }, ...pageQuery(query) },
    );
  return toPage(rows, query);
}
