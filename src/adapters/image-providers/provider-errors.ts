import { RemoteRateLimitedError, RemoteRejectedError, RemoteUnavailableError } from '../net/remote-errors.ts';
import { failureTypes } from '../temporal/failure-types.ts';

// What can go wrong with an image provider, in terms the generation activity acts on: permanent refusals fail
// the generation at once (the user sees `reason`), rate limits and outages are retried by Temporal.

/** The provider refused this request and will refuse it again (bad input, content moderation, too large...). */
export class ImageRejectedError extends RemoteRejectedError {
  readonly failureType = failureTypes.imageRejected;
}

/**
 * The provider refused the configured API key (401): every generation will fail until the operator fixes `setting`.
 * Final for the generation like any refusal; the worker also logs it and records it for the api's /ready.
 */
export class ImageKeyRejectedError extends ImageRejectedError {
  readonly setting: string;
  constructor(reason: string, setting: string) {
    super(reason);
    this.setting = setting;
  }
}

/** The provider asked us to slow down; retry no sooner than `retryAfterMs`. */
export class ImageRateLimitedError extends RemoteRateLimitedError {
  readonly failureType = failureTypes.imageRateLimited;
}

/** A transient failure (5xx, timeout, connection error): retry on the normal ladder, or when the provider said. */
export class ImageProviderUnavailableError extends RemoteUnavailableError {
  readonly failureType = failureTypes.imageProviderUnavailable;
}
