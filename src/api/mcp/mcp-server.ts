import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../../logger.ts';
import type { ToolCaller } from './call-tool.ts';
import type { McpTool, ToolContext } from './mcp-tool.ts';

const serverInfo = { name: 'content-service', version: '1.0.0' };
// The SDK's server makes its own Ajv (a few hundred microseconds of set-up) unless handed one: a server per request
// shares this one. It validates only what a server asks a client for (elicitation), which ours never does.
const jsonSchemaValidator = new AjvJsonSchemaValidator();
const instructions =
  'Posts are created, generated, previewed (preview_publication, a dry run) and then published (publish_post). Always preview first, ' +
  'and pass an idempotencyKey (a new UUID per intended change) on every tool that changes something: a retry with the same key ' +
  'and input gets the first answer and never creates or publishes twice.';

/** The tool list as tools/list answers it: built once at start-up, shared by every request's server. */
export function listedTools(tools: McpTool[]): Tool[] {
  return tools.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema as Tool['inputSchema'],
    outputSchema: tool.outputSchema as Tool['outputSchema'],
    annotations: { title: tool.title, ...tool.annotations },
  }));
}

/**
 * One request's MCP server (stateless: a server and transport per HTTP request, so any replica answers any request).
 * Only the handlers are made here; the tool list and validators were built at start-up.
 */
export function createMcpServer(listed: Tool[], callTool: ToolCaller, context: ToolContext & { logger: Logger; requestId: string }): Server {
  const server = new Server(serverInfo, { capabilities: { tools: {} }, instructions, jsonSchemaValidator });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  server.setRequestHandler(CallToolRequestSchema, (request) => callTool(context, request.params.name, request.params.arguments));
  return server;
}
