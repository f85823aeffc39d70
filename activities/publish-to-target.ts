import { Context } from '@temporalio/activity';
import { buffer } from 'node:stream/consumers';
import { beginTargetPublication, needsReauth } from '../src/domain/publishing/begin-target-publication.ts';
import { freshCredentials } from '../src/domain/social-connections/fresh-credentials.ts';
import { startEventDelivery } from './start-event-delivery.ts';
import { recordTargetPublished } from '../src/domain/publishing/record-target-published.ts';
import { countOutcome } from '../src/adapters/metrics/remote-call-outcome.ts';
import { socialPublishAttempts } from '../src/adapters/metrics/worker-metrics.ts';
import { connectionSessions } from '../src/adapters/social/connection-sessions.ts';
import { heartbeatingOnAClock } from './heartbeat-on-a-clock.ts';
import type { SocialPost } from '../src/adapters/social/social-connector.ts';
import type { Deps } from '../src/domain/deps.ts';

export type PublishToTargetInput = {
  targetId: string;
  publishedAt: string;
  /** Planned for later: publish only if the post is still `scheduled` (absent from activities scheduled before it existed). */
  onlyIfStillScheduled?: boolean;
};

/**
 * Publishes the post's title and image to one connection. Every attempt sends the target's idempotency key, so an
 * attempt retried after the platform already accepted the post finds that post instead of making a second one.
 */
export function publishToTarget(deps: Deps, input: PublishToTargetInput): Promise<void> {
  // A publish is several platform requests in a row (session, upload, post), each allowed as long as the heartbeat
  // timeout; only Mastodon's media processing reports progress.
  return heartbeatingOnAClock(() => publish(deps, input));
}

async function publish(deps: Deps, input: PublishToTargetInput): Promise<void> {
  const em = deps.orm.em.fork();
  const publication = await beginTargetPublication(em, input.targetId, { onlyIfStillScheduled: input.onlyIfStillScheduled ?? false });
  if (!publication) return;
  const { target, connection, post } = publication;

  const { credentials, refresh } = await freshCredentials(deps, connection);
  if (refresh?.state === 'needs_reauth') {
    // The platform refused to refresh the connection's tokens just now: its event goes out, the target fails.
    if (refresh.eventId) await startEventDelivery(deps, { eventId: refresh.eventId });
    throw needsReauth((await em.refresh(connection)) ?? connection);
  }
  const stored = post.imageKey ? await deps.storage.get(post.imageKey) : null;
  const socialPost: SocialPost = {
    text: post.title,
    language: connection.postLanguage ?? undefined,
    image: stored ? { bytes: await buffer(stored.body), contentType: 'image/png', alt: post.prompt.slice(0, 1000) } : undefined,
    idempotencyKey: target.idempotencyKey,
    onProgress: () => Context.current().heartbeat(),
  };
  const sessions = connectionSessions(deps.orm, deps.secrets, connection.id);
  const published = await countOutcome(deps.social[connection.platform].publish(credentials, socialPost, sessions), (outcome) =>
    socialPublishAttempts.inc({ platform: connection.platform, outcome }),
  );
  await em.transactional((tx) => recordTargetPublished(tx, publication, { ...published, publishedAt: input.publishedAt }));
}
