import { SocialConnection } from '../../adapters/database/entities/social-connection.ts';
import type { PublishTargetAttempt } from '../../adapters/database/entities/publish-target-attempt.ts';
import { notFound } from '../../common/errors/app-error.ts';
import type { Caller } from '../caller.ts';
import type { Deps } from '../deps.ts';
import { listPublishTargets } from './list-publish-targets.ts';
import type { TargetWithAttempts } from './target-attempts.ts';

/** A publish target's story in plain words: what happened to it and what the customer does next. */
export type TargetExplanation = {
  target: TargetWithAttempts;
  failed: boolean;
  whatHappened: string;
  whatToDo: string;
  /** The connection's status now (`needs_reauth`: the platform refused its credentials); null once it is deleted. */
  connectionStatus: string | null;
};

const newKey = 'publish again (publish_post, or POST /posts/{id}/publish-social) with a new idempotency key';

/**
 * Explains one of the post's publish targets from what its attempts recorded (each attempt's outcome and sentence,
 * see attempt-outcome.ts) and its connection's status: why it failed, or that it did not, and the next step.
 */
export async function explainFailedTarget(deps: Deps, caller: Caller, postId: string, targetId: string): Promise<TargetExplanation> {
  const target = (await listPublishTargets(deps, caller, postId)).find((candidate) => candidate.target.id === targetId);
  if (!target) throw notFound(`The publish target ${targetId} of the post ${postId}`);
  const connection = await deps.orm.em.fork().findOne(SocialConnection, { id: target.target.connectionId, workspaceId: caller.workspaceId });
  const connectionStatus = connection?.status ?? null;
  return { target, connectionStatus, ...story(target, connectionStatus) };
}

function story({ target, attempts }: TargetWithAttempts, connectionStatus: string | null): Pick<TargetExplanation, 'failed' | 'whatHappened' | 'whatToDo'> {
  const last: PublishTargetAttempt | undefined = attempts.at(-1);
  const platform = target.platform;
  switch (target.status) {
    case 'Published':
      return {
        failed: false,
        whatHappened: `It did not fail: ${platform} has the post${target.externalUrl ? ` (${target.externalUrl})` : ''}.`,
        whatToDo: 'Nothing.',
      };
    case 'Cancelled':
      return {
        failed: false,
        whatHappened: 'It did not fail: its publication was cancelled before it was sent (the post was unscheduled, made a draft again, or regenerated).',
        whatToDo: `To publish it anyway, ${newKey}.`,
      };
    case 'Failed':
      return failure(platform, target.errorMessage ?? null, last, connectionStatus);
    default:
      return {
        failed: false,
        whatHappened: last
          ? `It has not failed: it is ${target.status}; the last attempt ended ${last.outcome} (${last.detail})${last.nextAttemptAt ? `, and the next is due at ${last.nextAttemptAt.toISOString()}` : ''}.`
          : `It has not failed: it is ${target.status}, and no attempt has ended yet.`,
        whatToDo: 'Wait, and read the post again (get_post) after the next attempt; outages and rate limits are retried for about half an hour.',
      };
  }
}

function failure(
  platform: string,
  errorMessage: string | null,
  last: PublishTargetAttempt | undefined,
  connectionStatus: string | null,
): Pick<TargetExplanation, 'failed' | 'whatHappened' | 'whatToDo'> {
  const reason = errorMessage ? ` The reason recorded: "${errorMessage}".` : '';
  if (connectionStatus === null)
    return {
      failed: true,
      whatHappened: `Publishing failed, and its connection has been deleted since.${reason}`,
      whatToDo: `Connect the account again, then ${newKey}.`,
    };
  if (connectionStatus === 'needs_reauth')
    return {
      failed: true,
      whatHappened: `${platform} refused the connection's credentials (revoked, expired, or the app removed): the connection needs to be authorised again.${reason}`,
      whatToDo: `Connect the account again (the connection's status is needs_reauth), then ${newKey}.`,
    };
  switch (last?.outcome) {
    case 'refused':
      return {
        failed: true,
        whatHappened: `${platform} refused the post for good, in its own words: "${last.detail}". It is not retried: sending the same post again would be refused again.`,
        whatToDo: `Change what ${platform} refused (the text, the image, the connection's settings or destination; preview_publication lists the problems it can foresee), then ${newKey}.`,
      };
    case 'unknown':
      return {
        failed: true,
        whatHappened: `The post was sent to ${platform} and no answer came, and ${platform} cannot be asked whether it has it: it was not sent again, so that it is not posted twice.`,
        whatToDo: `Look at the account on ${platform}: if the post is not there, ${newKey}; if it is, there is nothing to do.`,
      };
    case 'rate_limited':
    case 'unavailable':
      return {
        failed: true,
        whatHappened: `${platform} ${last.outcome === 'rate_limited' ? 'kept asking us to slow down (its rate limit)' : 'could not be reached or kept failing on its side'} until the retries ran out (about half an hour).`,
        whatToDo: `Try again later: ${newKey} (preview_publication shows the account's limits).`,
      };
    default:
      return {
        failed: true,
        whatHappened: `Publishing failed ${last ? `after an attempt that ended ${last.outcome} (${last.detail})` : 'before any attempt reached the platform'}.${reason}`,
        whatToDo: `Fix what the reason names (preview_publication lists the problems it can foresee), then ${newKey}.`,
      };
  }
}
