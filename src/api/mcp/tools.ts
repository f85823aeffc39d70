import type { McpTool } from './mcp-tool.ts';
import { loadToolSpec } from './tool-schemas.ts';
import { cancelPublicationTool } from './tools/cancel-publication.ts';
import { createPostTool } from './tools/create-post.ts';
import { explainFailedTargetTool } from './tools/explain-failed-target.ts';
import { generatePostTool } from './tools/generate-post.ts';
import { getPostTool } from './tools/get-post.ts';
import { listConnectionsTool } from './tools/list-connections.ts';
import { listPlatformsTool } from './tools/list-platforms.ts';
import { listPostsTool } from './tools/list-posts.ts';
import { listProjectsTool } from './tools/list-projects.ts';
import { listSchedulesTool } from './tools/list-schedules.ts';
import { listUsageTool } from './tools/list-usage.ts';
import { previewPublicationTool } from './tools/preview-publication.ts';
import { publishPostTool } from './tools/publish-post.ts';

/** Every MCP tool, its schemas read from openapi.yaml: built once per process (see mcpRoutes). */
export function mcpTools(specPath: string): McpTool[] {
  const spec = loadToolSpec(specPath);
  return [
    listPlatformsTool,
    listConnectionsTool,
    listProjectsTool,
    listPostsTool,
    getPostTool,
    createPostTool,
    generatePostTool,
    previewPublicationTool,
    publishPostTool,
    cancelPublicationTool,
    explainFailedTargetTool,
    listUsageTool,
    listSchedulesTool,
  ].map((tool) => tool(spec));
}
