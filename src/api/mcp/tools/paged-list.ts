import type { Page } from '../../../domain/paging.ts';
import type { ToolAnswer } from '../mcp-tool.ts';
import type { JsonSchema } from '../tool-schemas.ts';

/** The annotations of a tool that reads the workspace and nothing else. */
export const readsWorkspace = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

/**
 * One page of a list as a tool gives it: REST's list body (an array) as `items`, and whether a next page exists (what
 * REST's `Link: rel="next"` says); the post lists also give the cursor of the next page.
 */
export function pagedSchema(items: JsonSchema, options: { cursor?: boolean } = {}): JsonSchema {
  return {
    type: 'object',
    description: "One page of the list, as REST's body (an array) under `items`; `hasMore` when a next page exists.",
    required: ['items', 'hasMore', ...(options.cursor ? ['nextCursor'] : [])],
    properties: {
      items,
      hasMore: { type: 'boolean', description: 'Whether another page follows: call again with `page` + 1.' },
      ...(options.cursor && { nextCursor: { type: ['string', 'null'], description: 'Pass as `cursor` for the next page (null on the last).' } }),
    },
  };
}

export function pagedAnswer<T>(page: Page<unknown> & { nextCursor?: string | undefined }, items: T[], options: { cursor?: boolean } = {}): ToolAnswer {
  return { status: 200, body: { items, hasMore: page.hasMore, ...(options.cursor && { nextCursor: page.nextCursor ?? null }) } };
}

/** `page` and `pageSize` as the input validator leaves them (defaults from openapi.yaml filled in). */
export function pageOf(input: Record<string, unknown>): { page: number; pageSize: number } {
  return { page: Number(input.page), pageSize: Number(input.pageSize) };
}

export function counted(noun: string) {
  return (structured: Record<string, unknown>): string => {
    const items = structured.items as unknown[];
    return `${items.length} ${noun}${items.length === 1 ? '' : 's'}${structured.hasMore === true ? ' (more on the next page)' : ''}.`;
  };
}
