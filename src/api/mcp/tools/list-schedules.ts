import { listSchedules } from '../../../domain/schedules/list-schedules.ts';
import { presentScheduleListItem } from '../../presenters/schedule.ts';
import type { McpTool } from '../mcp-tool.ts';
import { inputSchemaOf, responseSchemaOf, type ToolSpec } from '../tool-schemas.ts';
import { counted, pagedAnswer, pagedSchema, pageOf, readsWorkspace } from './paged-list.ts';

export function listSchedulesTool(spec: ToolSpec): McpTool {
  const operation = spec.operation('listSchedules');
  return {
    name: 'list_schedules',
    title: 'List the generation schedules',
    description:
      "The workspace's recurring generation schedules (GET /api/v1/schedules), newest first. Growth plan only: on Starter it answers plan-upgrade-required.",
    annotations: readsWorkspace,
    changes: false,
    inputSchema: inputSchemaOf(operation),
    outputSchema: pagedSchema(responseSchemaOf(operation)),
    summary: counted('schedule'),
    run: async ({ deps, caller }, input) => {
      const page = await listSchedules(deps, caller, pageOf(input));
      return pagedAnswer(page, page.items.map(presentScheduleListItem));
    },
  };
}
