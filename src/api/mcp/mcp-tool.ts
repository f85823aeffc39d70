import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { Caller } from '../../domain/caller.ts';
import type { Deps } from '../../domain/deps.ts';
import type { ApiKeyScope } from '../../adapters/database/entities/api-key.ts';
import { operationScopes, type ScopedOperation } from '../operation-scopes.ts';
import type { JsonSchema } from './tool-schemas.ts';

/** What a tool runs with: the process's deps and the key's caller, as a REST route has them. */
export type ToolContext = { deps: Deps; caller: Caller };

/**
 * What a tool answers, as REST answers the same operation: the status and the JSON body its presenter made (stored
 * as such under an idempotency key, so a retry over MCP or REST replays the same answer).
 */
export type ToolAnswer = { status: number; body: unknown; location?: string };

/**
 * The REST request a changing tool stands for, as the idempotency key's row names it (method, path, body): the same
 * key sent again over MCP or over REST with the same request replays the first answer, and with another request is
 * refused.
 */
export type KeyedOperation = { method: 'POST' | 'PUT'; path: string; body: unknown };

type ToolBase = {
  name: string;
  title: string;
  description: string;
  annotations: ToolAnnotations;
  inputSchema: JsonSchema;
  /** The schema of `structuredContent` (an object: lists come as `{ items }`). */
  outputSchema: JsonSchema;
  /** The structured content of an answer's body (default: the body, or `{ items }` for an array). */
  structured?: (body: unknown) => Record<string, unknown>;
  /** One line for the text content (the JSON follows it). */
  summary: (structured: Record<string, unknown>) => string;
};

/** A tool that only reads. */
type ReadTool = ToolBase & {
  /**
   * The REST operation whose scope it needs, when more than `read`: the dry run reads, but it may refresh a connection's
   * tokens while it asks the platform for the account's limits, so it needs what REST's dry run needs.
   */
  operationId?: ScopedOperation;
  run: (context: ToolContext, input: Record<string, unknown>) => Promise<ToolAnswer>;
};

/**
 * A tool that changes something: it takes `idempotencyKey` (required when `keyRequired`) with REST's semantics.
 * `run` gets the key's request fingerprint to record its effects under, as a route gets requestKeyOf.
 */
type ChangingTool = ToolBase & {
  /** The REST operation the tool stands for: the key needs its scope (operation-scopes.ts); a reading tool needs `read`. */
  operationId: ScopedOperation;
  keyRequired: boolean;
  operation: (input: Record<string, unknown>) => KeyedOperation;
  run: (context: ToolContext, input: Record<string, unknown>, requestKey: string | undefined) => Promise<ToolAnswer>;
};

export type McpTool = ({ changes: false } & ReadTool) | ({ changes: true } & ChangingTool);

/** The key scope a tool needs: its REST operation's (operation-scopes.ts), or `read` for a reading tool that names none. */
export function scopeOfTool(tool: McpTool): ApiKeyScope {
  return tool.operationId ? operationScopes[tool.operationId] : 'read';
}
