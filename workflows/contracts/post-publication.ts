import { defineQuery, defineUpdate } from '@temporalio/workflow';

// What starting and steering postPublication takes and answers: imported by its callers and by the workflow, and
// importing nothing of ours at run time.

export type PublicationRequest = {
  /** When to publish (ISO 8601); null or in the past: now. */
  publishAt: string | null;
  /** Social connections to publish to; none: publish the post itself only. */
  connectionIds: string[];
  /** What some of those connections are sent instead of the post's title (`text`) and prompt (`altText`), by id. */
  overrides?: PublicationOverrides;
  /**
   * Names the request's `Idempotency-Key` when it sent one (a hash of the key and the request): the plan is recorded
   * under it, and a retry of the request gets
   * that plan (also when the run that recorded it has ended) instead of a second publication.
   */
  requestKey?: string;
};

/**
 * By connection id: what it is sent instead of the post's title (`text`) and prompt (`altText`), whether a text
 * longer than its platform takes is posted as a thread (`thread`; absent: shortened into one post), and whether the
 * image or the video goes with it (`media`; absent: decided when it is published). The workflow
 * passes these on to the plan as they are.
 */
export type PublicationOverrides = Record<
  string,
  { text?: string | undefined; altText?: string | undefined; thread?: boolean | undefined; media?: 'image' | 'video' | undefined }
>;

/**
 * What a plan recorded: when, the publish targets, and whether the post became `scheduled`; and the publication's
 * result when the plan published at once (the first plan of a run, to publish now to no connection).
 */
export type PublicationPlan = {
  publishAt: string;
  scheduled: boolean;
  targetIds: string[];
  result?: PublicationResult;
  /** The same request was planned before by a publication whose run has ended: that plan, and nothing new planned. */
  replayed?: boolean;
};

/**
 * Plan (or re-plan) the publication: when, and to which connections. Answers once it is recorded, or, when it
 * publishes at once, once the post is settled.
 */
export const planUpdate = defineUpdate<PublicationPlan, [PublicationRequest]>('plan');
/** Cancel a publication that has not started yet. */
export const cancelUpdate = defineUpdate<void, []>('cancel');
export const publishAtQuery = defineQuery<string | null>('publishAt');

export type PublicationResult = { outcome: 'published' | 'failed' | 'cancelled'; publishedAt: string | null };

export type PostPublicationInput = {
  postId: string;
  /**
   * The publication's identity (its publish targets, its event's source): given by whoever starts the workflow,
   * and carried through continue-as-new, so a new run or a reset never makes it another publication.
   */
  publicationId: string;
  /** The plan a previous run of this publication continued as new with: the run goes on waiting for it. */
  carried?: { publishAt: number; targetIds: string[] };
};
