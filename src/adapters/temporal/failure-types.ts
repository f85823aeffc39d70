/**
 * Every type of Temporal failure our activities and workflows raise. The values are written into workflow
 * histories and matched by workflows (a refused image is final) and the api (a deleted post answers 404), so a value
 * never changes once shipped; the keys may. No `ApplicationFailure` is made with a type from anywhere else.
 */
export const failureTypes = {
  // A service at the network edge answered (activities/temporal-failure.ts): refused for good, asked us to slow down,
  // or could not be reached.
  imageRejected: 'ImageRejected',
  imageRateLimited: 'ImageRateLimited',
  imageProviderUnavailable: 'ImageProviderUnavailable',
  socialRejected: 'SocialRejected',
  socialRateLimited: 'SocialRateLimited',
  socialUnavailable: 'SocialUnavailable',
  // A post was sent and no answer came: whether the platform made it is unknown (see SocialOutcomeUnknownError).
  socialOutcomeUnknown: 'SocialOutcomeUnknown',

  // What the work was about was deleted while it ran.
  postDeleted: 'PostDeleted',
  connectionNotFound: 'ConnectionNotFound',
  jobDeleted: 'JobDeleted',
  scheduleDeleted: 'ScheduleDeleted',
  brandKitUnavailable: 'BrandKitUnavailable',
  projectUnavailable: 'ProjectUnavailable',

  // The work cannot go on as asked.
  // A social connection whose platform refused its tokens for good (status needs_reauth).
  connectionNeedsReauth: 'ConnectionNeedsReauth',
  noArtwork: 'NoArtwork',
  noImage: 'NoImage',
  // A publication asked for the post's video where it has none, or of a platform that takes none.
  noVideo: 'NoVideo',
  planUpgradeRequired: 'PlanUpgradeRequired',
  videoEncodingFailed: 'VideoEncodingFailed',
  // Stored bytes were swept before the row that claims them committed (see claimObjectKey).
  artworkExpired: 'ArtworkExpired',
  renderExpired: 'RenderExpired',
  videoExpired: 'VideoExpired',

  // Anything else an activity on our own database threw (bad data, a bug): final, the cause (with its class name)
  // attached.
  unexpected: 'UnexpectedError',

  // How a workflow itself fails, with the reason in words.
  generationFailed: 'GenerationFailed',
  scheduledRunFailed: 'ScheduledRunFailed',
  videoFailed: 'VideoFailed',
} as const;

export type FailureType = (typeof failureTypes)[keyof typeof failureTypes];
