import type { EntityManager } from '@mikro-orm/postgresql';
import { SocialConnection } from '../../adapters/database/entities/social-connection.ts';
import { AppError, notFound } from '../../common/errors/app-error.ts';
import type { PublicationOverrides } from '../../../workflows/contracts/post-publication.ts';
import type { Caller } from '../caller.ts';
import { readPost, type PostRecord } from '../posts/read-post.ts';
import { requireFuture } from './schedule-post.ts';

export type SocialPublicationRequest = {
  connectionIds: string[];
  scheduledAt?: string | null | undefined;
  overrides?: PublicationOverrides | undefined;
  /** A text longer than a platform takes is posted as a thread of parts where the platform has threads. */
  thread?: boolean | undefined;
  /** The image or the video, for every connection without its own in `overrides` (post-media.ts); absent: decided per platform. */
  media?: 'image' | 'video' | undefined;
};

/** What the request asks connection `connectionId` to be sent with its text: its override's, the request's, or null to decide per platform. */
export function requestedMediaOf(request: SocialPublicationRequest, connectionId: string): 'image' | 'video' | null {
  return request.overrides?.[connectionId]?.media ?? request.media ?? null;
}

/**
 * The post and its connections (in the order asked, each once), after the checks a publication and its dry run
 * share: a future time (unless the request `planned` already, see plannedUnderKey), overrides only for connections
 * asked for (400), and the post and every connection in the caller's workspace (404).
 */
export async function readSocialPublication(
  em: EntityManager,
  caller: Caller,
  postId: string,
  request: SocialPublicationRequest,
  { planned = false } = {},
): Promise<{ post: PostRecord; connections: SocialConnection[] }> {
  if (request.scheduledAt && !planned) requireFuture(request.scheduledAt);
  const connectionIds = [...new Set(request.connectionIds)];
  const stray = Object.keys(request.overrides ?? {}).find((id) => !connectionIds.includes(id));
  if (stray !== undefined) {
    throw new AppError('validation-failed', `overrides names connection ${stray}, which is not in connectionIds.`, {
      errors: [{ location: 'body', path: '/overrides', message: `names ${stray}, which is not in connectionIds` }],
    });
  }
  const post = await readPost(em, caller.workspaceId, postId);
  const found = await em.find(SocialConnection, { id: { $in: connectionIds }, workspaceId: caller.workspaceId });
  const connections = connectionIds.map((id) => {
    const connection = found.find((candidate) => candidate.id === id);
    if (!connection) throw notFound(`Social connection ${id}`);
    return connection;
  });
  return { post, connections };
}
