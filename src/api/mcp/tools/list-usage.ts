import { listUsageActivity } from '../../../domain/usage/list-usage-activity.ts';
import { presentUsageActivity } from '../../presenters/usage.ts';
import type { McpTool } from '../mcp-tool.ts';
import { inputSchemaOf, responseSchemaOf, type ToolSpec } from '../tool-schemas.ts';
import { pageOf, readsWorkspace } from './paged-list.ts';

export function listUsageTool(spec: ToolSpec): McpTool {
  const operation = spec.operation('listUsageActivity');
  const output = responseSchemaOf(operation);
  return {
    name: 'list_usage',
    title: 'List usage activity',
    description:
      "The workspace's usage (GET /api/v1/usage/activity), newest first: generations, renders, videos and publications, each counted against the plan's budgets.",
    annotations: readsWorkspace,
    changes: false,
    inputSchema: inputSchemaOf(operation),
    outputSchema: {
      ...output,
      required: [...(output.required as string[]), 'hasMore'],
      properties: { ...(output.properties as object), hasMore: { type: 'boolean', description: 'Whether another page follows.' } },
    },
    summary: (structured) => `${(structured.activity as unknown[]).length} usage item(s).`,
    run: async ({ deps, caller }, input) => {
      const page = await listUsageActivity(deps, caller, pageOf(input));
      return { status: 200, body: { ...presentUsageActivity(page.items), hasMore: page.hasMore } };
    },
  };
}
