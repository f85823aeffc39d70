import type { ConnectionEventDetails, PostEventDetails, WorkspaceEvent } from '../database/entities/workspace-event.ts';

/**
 * The JSON body of a delivery, as the spec shows it: `event`, `workspaceId`, `timestamp` (when the event happened)
 * and `data` about the post, plus `reason` for `post.failed`. The same for every attempt but for the image link,
 * which is signed afresh.
 */
export function webhookBody(event: WorkspaceEvent, imageUrl: string | null): string {
  if (event.type === 'connection.expired') return connectionEventBody(event);
  const details = event.details as PostEventDetails;
  return JSON.stringify({
    event: event.type,
    workspaceId: event.workspaceId,
    timestamp: event.createdAt.toISOString(),
    data: {
      id: event.postId,
      title: details.title,
      status: details.status,
      imageUrl,
      publishedAt: details.publishedAt,
      ...(details.reason ? { reason: details.reason } : {}),
    },
  });
}

function connectionEventBody(event: WorkspaceEvent): string {
  const details = event.details as ConnectionEventDetails;
  return JSON.stringify({
    event: event.type,
    workspaceId: event.workspaceId,
    timestamp: event.createdAt.toISOString(),
    data: { id: details.connectionId, platform: details.platform, accountName: details.accountName, status: 'needs_reauth', reason: details.reason },
  });
}
