import type { Schemas } from '../../schemas.ts';
import { listProjects } from '../../../domain/projects/list-projects.ts';
import { presentProjectListItem } from '../../presenters/project.ts';
import type { McpTool } from '../mcp-tool.ts';
import { inputSchemaOf, responseSchemaOf, type ToolSpec } from '../tool-schemas.ts';
import { counted, pagedAnswer, pagedSchema, pageOf, readsWorkspace } from './paged-list.ts';

export function listProjectsTool(spec: ToolSpec): McpTool {
  const operation = spec.operation('listProjects');
  return {
    name: 'list_projects',
    title: 'List the projects',
    description: "The workspace's projects (GET /api/v1/projects), newest first; a post is created in one (`projectId`).",
    annotations: readsWorkspace,
    changes: false,
    inputSchema: inputSchemaOf(operation),
    outputSchema: pagedSchema(responseSchemaOf(operation)),
    summary: counted('project'),
    run: async ({ deps, caller }, input) => {
      const status = input.status as Schemas['ProjectStatus'] | undefined;
      const page = await listProjects(deps, caller, { status, ...pageOf(input) });
      return pagedAnswer(page, page.items.map(presentProjectListItem));
    },
  };
}
