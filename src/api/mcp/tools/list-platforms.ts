import { listSocialPlatforms } from '../../../domain/social-platforms/list-social-platforms.ts';
import { presentSocialPlatform } from '../../presenters/social-platform.ts';
import type { McpTool } from '../mcp-tool.ts';
import { itemsSchemaOf, responseSchemaOf, type ToolSpec } from '../tool-schemas.ts';
import { readsWorkspace } from './paged-list.ts';

export function listPlatformsTool(spec: ToolSpec): McpTool {
  const operation = spec.operation('listSocialPlatforms');
  return {
    name: 'list_platforms',
    title: 'List the social platforms',
    description:
      'The platform catalogue (GET /api/v1/social-platforms): what each platform takes (text limit and unit, images, video, threads), whether the operator has set it up, and its connection settings. Read it before writing a post for a platform.',
    annotations: readsWorkspace,
    changes: false,
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    outputSchema: itemsSchemaOf(responseSchemaOf(operation), 'The catalogue (REST answers the array; here it is `items`).'),
    summary: (structured) => `${(structured.items as unknown[]).length} platforms in the catalogue.`,
    run: ({ deps }) => Promise.resolve({ status: 200, body: listSocialPlatforms(deps).map(presentSocialPlatform) }),
  };
}
