import { Ajv, type ValidateFunction } from 'ajv';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AppError, type FieldError } from '../../common/errors/app-error.ts';
import { openApiFormats } from '../../common/validation/formats.ts';
import { requireScope } from '../../domain/api-keys/require-scope.ts';
import type { Logger } from '../../logger.ts';
import { appErrorOf, problemOf } from '../middleware/problem-response.ts';
import { scopeOfTool, type McpTool, type ToolAnswer, type ToolContext } from './mcp-tool.ts';
import { keyRequired, ReplayedProblem, runKeyed } from './run-keyed.ts';

/** Calls a tool by name; every failure is a tool result with `isError` (never a protocol error). */
export type ToolCaller = (context: ToolContext & { logger: Logger; requestId: string }, name: string, input: unknown) => Promise<CallToolResult>;

/**
 * The one way a tool is called: held to the key's scope as its REST operation is, its input checked against the schema it published (the operation's, from
 * openapi.yaml, with the formats the REST validator uses and its defaults filled in, as REST's validator fills them in
 * before the Idempotency-Key's hash), then run (under its idempotency
 * key if it changes something), and its answer or problem turned into a result. Input validators compile once.
 */
export function toolCaller(tools: McpTool[]): ToolCaller {
  const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false });
  for (const [name, format] of Object.entries(openApiFormats)) ajv.addFormat(name, format);
  const byName = new Map(tools.map((tool) => [tool.name, { tool, validate: ajv.compile(tool.inputSchema) }]));

  return async (context, name, input) => {
    const instance = `/mcp/tools/${name}`;
    try {
      const entry = byName.get(name);
      if (!entry) throw new AppError('not-found', `No tool is named ${name}; tools/list names them.`);
      const { tool, validate } = entry;
      requireScope(context.caller, scopeOfTool(tool), `The tool ${name}`);
      const args = structuredClone(input ?? {}) as Record<string, unknown>;
      if (tool.changes && tool.keyRequired && args.idempotencyKey === undefined) throw keyRequired(tool.name);
      checkInput(validate, args);
      const answer = await run(context, tool, args);
      const structured = tool.structured ? tool.structured(answer.body) : asObject(answer.body);
      return {
        content: [
          { type: 'text', text: tool.summary(structured) + (answer.replayed ? ' (the answer to the first call with this idempotencyKey, replayed)' : '') },
          { type: 'text', text: JSON.stringify(structured) },
        ],
        structuredContent: structured,
      };
    } catch (error) {
      if (error instanceof ReplayedProblem) return errorResult(error.problem);
      const appError = appErrorOf(error);
      if (appError.code === 'internal-error') context.logger.error({ err: error, tool: name }, 'an MCP tool failed unexpectedly');
      if (appError.code === 'service-unavailable') context.logger.warn({ err: error, tool: name }, 'a dependency did not answer');
      return errorResult(problemOf(appError, instance, context.requestId));
    }
  };
}

async function run(context: ToolContext & { logger: Logger }, tool: McpTool, args: Record<string, unknown>): Promise<ToolAnswer & { replayed?: boolean }> {
  if (!tool.changes) return tool.run(context, args);
  const { idempotencyKey, ...input } = args;
  if (typeof idempotencyKey !== 'string') return tool.run(context, input, undefined);
  return runKeyed(context.deps, context.logger, context.caller.workspaceId, idempotencyKey, tool.operation(input), (requestKey) =>
    tool.run(context, input, requestKey),
  );
}

/** A 400 naming each invalid member, as the REST validator's (`/connectionIds/0 must match format "uuid"`). */
function checkInput(validate: ValidateFunction, args: Record<string, unknown>): void {
  if (validate(args)) return;
  const errors: FieldError[] = (validate.errors ?? []).map((error) => {
    const missing = error.keyword === 'required' ? `/${String(error.params.missingProperty)}` : '';
    const extra = error.keyword === 'additionalProperties' ? `/${String(error.params.additionalProperty)}` : '';
    return { location: 'body', path: `${error.instancePath}${missing}${extra}` || '/', message: error.message ?? 'is invalid' };
  });
  const list = errors.map((item) => `${item.path} ${item.message}`).join('; ');
  throw new AppError('validation-failed', `The tool's input has ${errors.length} invalid member(s): ${list}.`, { errors });
}

function asObject(body: unknown): Record<string, unknown> {
  return Array.isArray(body) ? { items: body } : (body as Record<string, unknown>);
}

function errorResult(problem: unknown): CallToolResult {
  const { title, detail } = problem as { title?: string; detail?: string };
  return {
    isError: true,
    content: [
      { type: 'text', text: `${title ?? 'Error'}: ${detail ?? ''}` },
      { type: 'text', text: JSON.stringify(problem) },
    ],
  };
}
