import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';

// Custom search attributes attached to our workflows, so an operator can filter runs in the Temporal UI
// (e.g. `workspaceId = "..."`). Servers must know them: the dev server registers them at start-up, tests
// register them on the time-skipping server, and on a cluster `temporal operator search-attribute create`
// does it (docker-compose's temporal-setup service).
export const searchAttributes = {
  workspaceId: defineSearchAttributeKey('workspaceId', SearchAttributeType.KEYWORD),
  projectId: defineSearchAttributeKey('projectId', SearchAttributeType.KEYWORD),
  postId: defineSearchAttributeKey('postId', SearchAttributeType.KEYWORD),
};

/** `name=Type` as the Temporal CLI's `--search-attribute` flag spells it. */
export function searchAttributeFlags(): string[] {
  return Object.values(searchAttributes).map(({ name }) => `${name}=Keyword`);
}

/** Search attributes of every workflow about a post, so the Temporal UI can find them by workspace, project or post. */
export function postSearchAttributes(post: { id: string; workspaceId: string; projectId: string }): SearchAttributePair[] {
  return [
    { key: searchAttributes.workspaceId, value: post.workspaceId },
    { key: searchAttributes.projectId, value: post.projectId },
    { key: searchAttributes.postId, value: post.id },
  ];
}
