import type { JsonSchema, ToolSpec } from '../tool-schemas.ts';
import { parameterSchemaOf } from '../tool-schemas.ts';

/** A tool that changes the workspace only (a post, a draft), the same way again for the same key. */
export const changesWorkspace = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

/**
 * The input of a changing tool: the operation's, and `idempotencyKey` with the schema of REST's Idempotency-Key
 * header (from openapi.yaml). `required` for the tools that publish.
 */
export function withIdempotencyKey(spec: ToolSpec, input: JsonSchema, required: boolean): JsonSchema {
  const key = {
    ...parameterSchemaOf(spec.operation('createPost'), 'Idempotency-Key'),
    description:
      "A unique value you choose for this change (e.g. a new UUID), REST's Idempotency-Key: a retry with the same key and input gets the first answer and changes nothing twice; the same key with another input is refused. Kept 24 hours per workspace, shared with the REST API.",
  };
  return {
    ...input,
    properties: { ...(input.properties as object), idempotencyKey: key },
    ...(required && { required: [...((input.required as string[] | undefined) ?? []), 'idempotencyKey'] }),
  };
}
