import { ApplicationFailure, Context } from '@temporalio/activity';
import { buffer } from 'node:stream/consumers';
import { Post } from '../src/data/entities/post.ts';
import { PublishTarget } from '../src/data/entities/publish-target.ts';
import { SocialConnection } from '../src/data/entities/social-connection.ts';
import { recordUsage } from '../src/domain/usage/record-usage.ts';
import { countOutcome } from '../src/metrics/remote-call-outcome.ts';
import { socialPublishAttempts } from '../src/metrics/worker-metrics.ts';
import { connectionSessions } from '../src/social/connection-sessions.ts';
import type { SocialCredentials, SocialPost } from '../src/social/social-connector.ts';
import type { ActivityDeps } from './index.ts';
import { asTemporalFailure } from './remote-failure.ts';
import { failureTypes } from '../src/temporal/failure-types.ts';

/**
 * Publishes the post's title and image to one connection. Every attempt sends the target's idempotency key, so an
 * attempt retried after the platform already accepted the post finds that post instead of making a second one.
 */
export async function publishToTarget(deps: ActivityDeps, input: { targetId: string; publishedAt: string }): Promise<void> {
  const em = deps.orm.em.fork();
  const target = await em.findOne(PublishTarget, input.targetId);
  if (!target || target.status === 'Published' || target.status === 'Cancelled') return;
  const connection = await em.findOne(SocialConnection, target.connectionId);
  if (!connection) throw ApplicationFailure.nonRetryable('The social connection was deleted before the post was published.', failureTypes.connectionNotFound);
  const post = await em.findOne(Post, target.postId);
  if (!post) throw ApplicationFailure.nonRetryable(`Post ${target.postId} was deleted before it was published.`, failureTypes.postDeleted);

  target.status = 'Publishing';
  await em.flush();

  const credentials = JSON.parse(deps.secrets.open(connection.credentialsSealed)) as SocialCredentials;
  const stored = post.imageKey ? await deps.storage.get(post.imageKey) : null;
  const socialPost: SocialPost = {
    text: post.title,
    language: connection.postLanguage ?? undefined,
    image: stored ? { bytes: await buffer(stored.body), contentType: 'image/png', alt: post.prompt.slice(0, 1000) } : undefined,
    idempotencyKey: target.idempotencyKey,
    onProgress: () => Context.current().heartbeat(),
  };
  let published;
  try {
    published = await countOutcome(deps.social[connection.platform].publish(credentials, socialPost, connectionSessions(deps.orm, deps.secrets, connection.id)), (outcome) =>
      socialPublishAttempts.inc({ platform: connection.platform, outcome }),
    );
  } catch (error) {
    throw asTemporalFailure(error);
  }
  await em.transactional(async (tx) => {
    const locked = await tx.findOneOrFail(PublishTarget, target.id);
    Object.assign(locked, {
      status: 'Published',
      externalPostId: published.externalPostId,
      externalUrl: published.url ?? null,
      errorMessage: null,
      publishedAt: new Date(input.publishedAt),
    });
    recordUsage(tx, {
      workspaceId: post.workspaceId,
      type: 'SocialPublish',
      description: `Published "${post.title}" to ${connection.platform} as ${connection.accountName}.`,
      postId: post.id,
    });
  });
}
