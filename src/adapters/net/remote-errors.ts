import type { FailureType } from '../temporal/failure-types.ts';

// How a call to a service at the network edge (image provider, social platform) can fail, in the three kinds the
// activities treat differently: a refusal fails the work at once (the user sees `reason`), a rate limit is retried
// no sooner than the service asked, an outage is retried on the normal ladder. Each service names its own
// subclasses, each with the Temporal failure type it becomes (from the one table, src/adapters/temporal/failure-types.ts,
// so that renaming a class never changes what workflows and the api match on).

abstract class RemoteError extends Error {
  abstract readonly failureType: FailureType;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The service refused this request and will refuse it again. */
export abstract class RemoteRejectedError extends RemoteError {
  readonly reason: string;
  constructor(reason: string) {
    super(reason);
    this.reason = reason;
  }
}

/** The service asked us to slow down; retry no sooner than `retryAfterMs`. */
export abstract class RemoteRateLimitedError extends RemoteError {
  readonly retryAfterMs: number;
  constructor(message: string, retryAfterMs: number) {
    super(message);
    this.retryAfterMs = retryAfterMs;
  }
}

/** A transient failure (5xx, timeout, connection error): retry on the normal ladder, or after `retryAfterMs`. */
export abstract class RemoteUnavailableError extends RemoteError {
  /** A request that creates something was sent and no answer came: the service may have acted on it. */
  readonly outcomeUnknown: boolean = false;
  /** When the service said when to come back (a 503's Retry-After); otherwise the retry policy's ladder decides. */
  readonly retryAfterMs: number | undefined;
  constructor(message: string, options?: { cause?: unknown; retryAfterMs?: number }) {
    super(message, options);
    this.retryAfterMs = options?.retryAfterMs;
  }
}
