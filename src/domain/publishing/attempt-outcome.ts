import type { PublishAttemptOutcome } from '../../adapters/database/entities/publish-target-attempt.ts';
import { RemoteRateLimitedError, RemoteRejectedError, RemoteUnavailableError } from '../../adapters/net/remote-errors.ts';
import { SocialOutcomeUnknownError, type ServerAnswer } from '../../adapters/social/social-connector.ts';
import { serverAnswersOf } from '../../adapters/social/server-answers.ts';
import { failureReasonOfType, ourSideSentence } from '../../adapters/temporal/failure-reasons.ts';
import { failureTypes } from '../../adapters/temporal/failure-types.ts';
import { WorkRefused } from '../work-refused.ts';

// What a client reads of one attempt to publish a target: its outcome and a sentence. As for a failure's reason
// (src/adapters/temporal/failure-reasons.ts), only a refusal keeps its own words (the platform's reason, tokens
// blanked by the connector, or what our domain refused); every other outcome reads as one sentence of ours, never
// the error's message, which may name hosts, ports and paths.

/** `answers`: each server's, when the post went to several (Nostr relays). */
export type AttemptOutcome = { outcome: PublishAttemptOutcome; detail: string; answers?: ServerAnswer[] | null };

const publishedDetail = 'Published on the platform.';

/** A published attempt's sentence, with who can see the post where the platform made it less than public (its connector's words). */
export function publishedDetailOf(visibility: string | undefined): string {
  return visibility ? `${publishedDetail} ${visibility}` : publishedDetail;
}
export const foundDetail = 'Found on the platform: the earlier attempt whose answer was lost had published it, so it was not sent again.';
export const vanishedDetail = 'The attempt stopped without an outcome (its worker stopped, or it ran out of time); whether it sent the post is unknown.';

const rateLimitedDetail = 'The platform asked us to slow down (its rate limit).';
const unavailableDetail = 'The platform could not be reached, or answered with an error of its own.';
const unknownDetail = 'The post was sent but no answer came; it is looked up on the platform before any new attempt, so it is never posted twice.';
/** For a platform that cannot tell whether it has the post, and where sending it again could post twice. */
export const unknownNotRetriedDetail =
  'The post was sent but no answer came, and the platform cannot tell us whether it was published, so it is not sent again; look at the account before publishing it again.';

/** The outcome of an attempt that failed with `error`. */
export function attemptOutcomeOf(error: unknown): AttemptOutcome {
  return { ...outcomeOf(error), answers: serverAnswersOf(error) };
}

function outcomeOf(error: unknown): AttemptOutcome {
  if (error instanceof SocialOutcomeUnknownError) return { outcome: 'unknown', detail: unknownDetail };
  // An unknown outcome that is not retried (see publish-to-target.ts): the outcome stays unknown, for good.
  if (error instanceof WorkRefused && error.failureType === failureTypes.socialOutcomeUnknown) return { outcome: 'unknown', detail: error.message };
  if (error instanceof RemoteRejectedError) return { outcome: 'refused', detail: failureReasonOfType(error.failureType, error.reason) };
  if (error instanceof WorkRefused) return { outcome: 'refused', detail: failureReasonOfType(error.failureType, error.message) };
  if (error instanceof RemoteRateLimitedError) return { outcome: 'rate_limited', detail: rateLimitedDetail };
  if (error instanceof RemoteUnavailableError) return { outcome: 'unavailable', detail: unavailableDetail };
  // Our side (storage, the database, a bug): retried on the same ladder as an outage.
  return { outcome: 'unavailable', detail: ourSideSentence };
}
