import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { failingAsTemporal } from '../../activities/temporal-failure.ts';
import { WorkRefused } from '../../src/domain/work-refused.ts';
import { ImageProviderUnavailableError, ImageRateLimitedError, ImageRejectedError } from '../../src/adapters/image-providers/provider-errors.ts';
import { failureTypes } from '../../src/adapters/temporal/failure-types.ts';
import { failureOf } from '../support/failure-of.ts';

// The boundary of activities that call services at the network edge: how each failure reaches Temporal's retry policy.

const failureAtBoundary = (error: Error) => failureOf(failingAsTemporal(() => Promise.reject(error)));

describe('failingAsTemporal', () => {
  it("when the domain refused the work, then the failure is final with the refusal's type and words", async () => {
    expect(await failureAtBoundary(new WorkRefused(failureTypes.noArtwork, 'No artwork yet.'))).toMatchObject({
      type: failureTypes.noArtwork,
      nonRetryable: true,
      message: 'No artwork yet.',
    });
  });

  it('when the provider refused, then the failure is final; when it is rate limited, it waits as asked; when it is down, it is retried', async () => {
    expect(await failureAtBoundary(new ImageRejectedError('Refused by moderation.'))).toMatchObject({
      type: failureTypes.imageRejected,
      nonRetryable: true,
      message: 'Refused by moderation.',
    });
    expect(await failureAtBoundary(new ImageRateLimitedError('Slow down.', 60_000))).toMatchObject({
      type: failureTypes.imageRateLimited,
      nonRetryable: false,
      nextRetryDelay: 60_000,
    });
    expect(await failureAtBoundary(new ImageProviderUnavailableError('503'))).toMatchObject({
      type: failureTypes.imageProviderUnavailable,
      nonRetryable: false,
    });
  });

  it('when the work throws anything else, then it passes unchanged', async () => {
    const other = new TypeError('a bug');
    expect(await failureAtBoundary(other)).toBe(other);
    expect(other).not.toBeInstanceOf(ApplicationFailure);
  });
});
