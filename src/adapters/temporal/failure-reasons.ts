import { ActivityFailure, ApplicationFailure, ChildWorkflowFailure, TimeoutFailure } from '@temporalio/common';
import { failureTypes, type FailureType } from './failure-types.ts';
import { causesOf } from '../../common/errors/caught.ts';

// What a client reads of work that failed: a post's `failureReason` and its `post.failed` webhook body, a publish
// target's `errorMessage`, a schedule's `lastRunError`, a video job's `error` and `message`, the 422 of generate and
// render. One sentence of ours per failure type, never the failure's own message, which may name hosts, ports and
// paths or quote ffmpeg. Only messages written for the user keep their words: a refusal by the image provider or a
// platform (the user must see why: content moderation, a revoked token, a text too long) and what our own domain
// refused in its words (WorkRefused: what was deleted, what expired, what the plan stops). The failure's own
// message goes to the log, with the workflow and request ids (workflows/failure-reason.ts). Workflow code imports
// this file.

/** The failure's message is shown as it is: a reason written for the user. */
const asWritten = null;

/** Anything that is not one of our failure types: a storage or database error, a bug, a timeout. */
export const ourSideSentence = 'Something went wrong on our side; try again, and contact support if it keeps failing.';

const sentences: Record<FailureType, string | typeof asWritten> = {
  [failureTypes.imageRejected]: asWritten,
  [failureTypes.imageRateLimited]: 'The image provider kept refusing more requests (its rate limit) after several attempts; try again later.',
  [failureTypes.imageProviderUnavailable]: 'The image provider could not be reached after several attempts; try again later.',
  [failureTypes.socialRejected]: asWritten,
  [failureTypes.socialRateLimited]: 'The platform kept refusing more posts (its rate limit) after several attempts; try again later.',
  [failureTypes.socialUnavailable]: 'The platform could not be reached after several attempts; try again later.',
  [failureTypes.socialOutcomeUnknown]:
    'The post was sent but the platform did not answer, and whether it was published could not be checked; look at the account before publishing it again.',

  [failureTypes.postDeleted]: asWritten,
  [failureTypes.connectionNotFound]: asWritten,
  [failureTypes.jobDeleted]: asWritten,
  [failureTypes.scheduleDeleted]: asWritten,
  [failureTypes.brandKitUnavailable]: asWritten,
  [failureTypes.projectUnavailable]: asWritten,

  [failureTypes.connectionNeedsReauth]: asWritten,
  [failureTypes.noArtwork]: asWritten,
  [failureTypes.noImage]: asWritten,
  [failureTypes.noVideo]: asWritten,
  [failureTypes.planUpgradeRequired]: asWritten,
  [failureTypes.videoEncodingFailed]: "The video could not be encoded from the post's image; generate or render the image again, then start a new video.",
  [failureTypes.artworkExpired]: asWritten,
  [failureTypes.renderExpired]: asWritten,
  [failureTypes.videoExpired]: asWritten,

  [failureTypes.unexpected]: ourSideSentence,

  // A workflow's own failure carries a reason already read through this table.
  [failureTypes.generationFailed]: asWritten,
  [failureTypes.scheduledRunFailed]: asWritten,
  [failureTypes.videoFailed]: asWritten,
};

/** A sentence for an attempt that ran out of time (its worker died, or the work outlasted its bound). */
const timedOutSentence = 'The work took longer than allowed (a worker stopped answering, or the service was busy).';

/** What a client reads of a failure of the type `type` (absent: not an application failure) whose message is `message`. */
export function failureReasonOfType(type: string | undefined, message: string): string {
  const sentence = type !== undefined && Object.hasOwn(sentences, type) ? sentences[type as FailureType] : ourSideSentence;
  return sentence === asWritten ? message : sentence;
}

/**
 * What a client reads of `failure`, as a workflow or the api catches it: an activity's or a child workflow's failure
 * reads as what it wraps.
 */
export function failureReasonOf(failure: unknown): string {
  let current = failure;
  for (let depth = 0; (current instanceof ActivityFailure || current instanceof ChildWorkflowFailure) && depth < 5; depth += 1) current = current.cause;
  if (current instanceof ApplicationFailure) return failureReasonOfType(current.type ?? undefined, current.message);
  if (current instanceof TimeoutFailure) return timedOutSentence;
  return ourSideSentence;
}

/** The same of a failure as Temporal describes it (a pending activity's last failure). */
export function failureReasonOfDescribed(failure: {
  message?: string | null;
  applicationFailureInfo?: { type?: string | null } | null;
  timeoutFailureInfo?: object | null;
}): string {
  if (failure.timeoutFailureInfo) return timedOutSentence;
  return failureReasonOfType(failure.applicationFailureInfo?.type ?? undefined, failure.message ?? '');
}

/** The failure as an operator reads it in the log: every message of its chain, with each application failure's type. */
export function failureChainOf(failure: unknown): string {
  const parts: string[] = [];
  for (const current of causesOf(failure, 8)) {
    const type = current instanceof ApplicationFailure && current.type ? ` [${current.type}]` : '';
    parts.push(`${current.name}${type}: ${current.message}`);
  }
  return parts.length > 0 ? parts.join(' <- ') : String(failure);
}
