import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

// Custom search attributes attached to our workflows, so an operator can filter runs in the Temporal UI
// (e.g. `workspaceId = "..."`). Servers must know them: the dev server registers them at start-up; on a
// cluster, `temporal operator search-attribute create` (see README).
export const workspaceIdKey = defineSearchAttributeKey('workspaceId', SearchAttributeType.KEYWORD);
export const projectIdKey = defineSearchAttributeKey('projectId', SearchAttributeType.KEYWORD);
export const postIdKey = defineSearchAttributeKey('postId', SearchAttributeType.KEYWORD);

/** Name → type as the Temporal CLI spells it. */
export const searchAttributeTypes = {
  workspaceId: 'Keyword',
  projectId: 'Keyword',
  postId: 'Keyword',
} as const;
