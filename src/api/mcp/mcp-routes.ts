import express, { Router, type ErrorRequestHandler, type Request } from 'express';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { LastUsedTracker } from '../../domain/api-keys/last-used-tracker.ts';
import type { Deps } from '../../domain/deps.ts';
import { AppError } from '../../common/errors/app-error.ts';
import { oncePerKey } from '../../common/once-per-key.ts';
import { callerOf } from '../caller-of.ts';
import { authenticate } from '../middleware/authenticate.ts';
import { rateLimit } from '../middleware/rate-limit.ts';
import { wellFormedBody } from '../middleware/well-formed-body.ts';
import type { RateLimiter } from '../rate-limits/rate-limiter.ts';
import { toolCaller } from './call-tool.ts';
import { createMcpServer, listedTools } from './mcp-server.ts';
import { scopeOfTool } from './mcp-tool.ts';
import { mcpTools } from './tools.ts';
import { scopeCovers } from '../../domain/api-keys/require-scope.ts';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { apiKeyScopes, type ApiKeyScope } from '../../adapters/database/entities/api-key.ts';

type Options = { deps: Deps; lastUsed: LastUsedTracker; rateLimiter: RateLimiter; specPath: string };

/**
 * The MCP server at /mcp (Streamable HTTP, stateless: a server and transport per POST, as the SDK's stateless example
 * does, so any api replica answers any request), behind the same API keys, rate limits and plans as /api/v1. Outside
 * openapi.yaml: see docs/agents.md. The tools, their schemas (from openapi.yaml) and input validators are built here,
 * once per process.
 */
export function mcpRoutes({ deps, lastUsed, rateLimiter, specPath }: Options): Router {
  const { listedFor, callTool } = toolbox(specPath);
  const router = Router();

  router.post(
    '/mcp',
    authenticate(deps.orm, lastUsed, rateLimiter),
    rateLimit(rateLimiter),
    express.json({ limit: '256kb' }),
    wellFormedBody,
    async (req, res) => {
      const context = { deps, caller: callerOf(res), logger: req.log, requestId: String(res.getHeader('x-request-id') ?? '') };
      const server = createMcpServer(listedFor[context.caller.scope], callTool, context);
      // The SDK's Streamable HTTP transport itself (its Node StreamableHTTPServerTransport wraps this one), handed
      // the body Express parsed: the Node wrapper would rebuild the whole request as a Web stream first, a millisecond
      // a call. JSON answers rather than an event stream: every tool answers once.
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      // Neither is closed afterwards: with JSON answers and no session, nothing stays open once the answer is made, and
      // closing would only build an error (with its stack) to reject the requests still waiting, of which there are none.
      await server.connect(transport);
      const answer = await transport.handleRequest(webRequestOf(req), { parsedBody: req.body });
      res.status(answer.status);
      answer.headers.forEach((value, name) => res.setHeader(name, value));
      res.send(answer.body ? Buffer.from(await answer.arrayBuffer()) : undefined);
    },
  );

  // Stateless: no stream to open (GET) and no session to end (DELETE).
  router.all('/mcp', (req, _res, next) => next(new AppError('method-not-allowed', `${req.method} is not allowed on /mcp; send MCP messages with POST.`)));
  router.use('/mcp', challengeBearer);
  return router;
}

/** The tools, the list each scope is shown and their caller (which compiles their input validators): once per process. */
const toolbox = oncePerKey((specPath: string) => {
  const tools = mcpTools(specPath);
  // tools/list shows a key only the tools its scope allows (a call of another is refused all the same).
  const listedFor = Object.fromEntries(
    apiKeyScopes.map((scope) => [scope, listedTools(tools.filter((tool) => scopeCovers(scope, scopeOfTool(tool))))]),
  ) as Record<ApiKeyScope, Tool[]>;
  return { listedFor, callTool: toolCaller(tools) };
});

/** A refused key is told how to authenticate (RFC 6750), as MCP clients expect of a protected server. */
const challengeBearer: ErrorRequestHandler = (error: unknown, _req, res, next) => {
  if (error instanceof AppError && error.code === 'unauthorized') res.set('WWW-Authenticate', 'Bearer realm="mcp"');
  next(error);
};

// The headers the SDK's transport reads (its host and origin checks, content negotiation, the protocol version and
// session): a Web Request with only these is a fraction of one that copies every header.
const transportHeaders = ['host', 'origin', 'accept', 'content-type', 'last-event-id', 'mcp-protocol-version', 'mcp-session-id'];

/** The request's method and the headers the transport reads, as a Web Request (its body is handed over parsed). */
function webRequestOf(req: Request): globalThis.Request {
  const headers = new Headers();
  for (const name of transportHeaders) {
    const value = req.headers[name];
    if (typeof value === 'string') headers.set(name, value);
  }
  return new globalThis.Request(`http://localhost${req.originalUrl}`, { method: req.method, headers });
}
