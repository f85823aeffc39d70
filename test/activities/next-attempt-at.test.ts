import { describe, expect, it } from 'vitest';
import { nextAttemptAt } from '../../activities/next-attempt-at.ts';
import { SocialRateLimitedError, SocialRejectedError, SocialUnavailableError } from '../../src/adapters/social/social-connector.ts';
import { failureTypes } from '../../src/adapters/temporal/failure-types.ts';
import { WorkRefused } from '../../src/domain/work-refused.ts';
import { socialPublish } from '../../workflows/contracts/activity-options.ts';

// When the publish activity tells clients its next attempt is due, as Temporal computes it from socialPublish's
// retry policy (5 s, doubling, at most 5 minutes apart, 10 attempts).

const failedAt = new Date('2026-11-27T12:00:00Z');
const waitAfter = (error: unknown, attempt: number) => {
  const next = nextAttemptAt(error, attempt, socialPublish.retry, failedAt);
  return next === null ? null : next.getTime() - failedAt.getTime();
};

describe('nextAttemptAt', () => {
  it('when an outage fails attempts 1 to 9, then the waits double from 5 s up to 5 minutes', () => {
    const outage = new SocialUnavailableError('down');
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9].map((attempt) => waitAfter(outage, attempt))).toEqual([
      5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000,
    ]);
  });

  it('when the platform asks to wait, then the next attempt is due when it asked, whatever the ladder says', () => {
    expect(waitAfter(new SocialRateLimitedError('slow down', 90_000), 1)).toBe(90_000);
  });

  it('when the failure is final or the attempt was the last allowed, then no attempt follows', () => {
    expect(waitAfter(new SocialRejectedError('refused'), 1)).toBeNull();
    expect(waitAfter(new WorkRefused(failureTypes.socialOutcomeUnknown, 'check the account'), 1)).toBeNull();
    expect(waitAfter(new SocialUnavailableError('down'), 10)).toBeNull();
    expect(waitAfter(new SocialRateLimitedError('slow down', 1_000), 10)).toBeNull();
  });
});
