import express, { Router, type ErrorRequestHandler } from 'express';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { LastUsedTracker } from '../../domain/api-keys/last-used-tracker.ts';
import type { Deps } from '../../domain/deps.ts';
import { AppError } from '../../common/errors/app-error.ts';
import { callerOf } from '../caller-of.ts';
import { authenticate } from '../middleware/authenticate.ts';
import { rateLimit } from '../middleware/rate-limit.ts';
import { wellFormedBody } from '../middleware/well-formed-body.ts';
import type { RateLimiter } from '../rate-limits/rate-limiter.ts';
import { toolCaller } from './call-tool.ts';
import { createMcpServer, listedTools } from './mcp-server.ts';
import { mcpTools } from './tools.ts';

type Options = { deps: Deps; lastUsed: LastUsedTracker; rateLimiter: RateLimiter; specPath: string };

/**
 * The MCP server at /mcp (Streamable HTTP, stateless: a server and transport per POST, as the SDK's stateless example
 * does, so any api replica answers any request), behind the same API keys, rate limits and plans as /api/v1. Outside
 * openapi.yaml: see docs/agents.md. The tools, their schemas (from openapi.yaml) and input validators are built here,
 * once per process.
 */
export function mcpRoutes({ deps, lastUsed, rateLimiter, specPath }: Options): Router {
  const tools = mcpTools(specPath);
  const listed = listedTools(tools);
  const callTool = toolCaller(tools);
  const router = Router();

  router.post(
    '/mcp',
    authenticate(deps.orm, lastUsed, rateLimiter),
    rateLimit(rateLimiter),
    express.json({ limit: '256kb' }),
    wellFormedBody,
    async (req, res) => {
      const context = { deps, caller: callerOf(res), logger: req.log, requestId: String(res.getHeader('x-request-id') ?? '') };
      const server = createMcpServer(listed, callTool, context);
      // JSON answers rather than an event stream: every tool answers once, and a plain answer is cheaper to send.
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    },
  );

  // Stateless: no stream to open (GET) and no session to end (DELETE).
  router.all('/mcp', (req, _res, next) => next(new AppError('method-not-allowed', `${req.method} is not allowed on /mcp; send MCP messages with POST.`)));
  router.use('/mcp', challengeBearer);
  return router;
}

/** A refused key is told how to authenticate (RFC 6750), as MCP clients expect of a protected server. */
const challengeBearer: ErrorRequestHandler = (error: unknown, _req, res, next) => {
  if (error instanceof AppError && error.code === 'unauthorized') res.set('WWW-Authenticate', 'Bearer realm="mcp"');
  next(error);
};
