import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { failingAsTemporal } from '../../activities/temporal-failure.ts';
import { WorkRefused } from '../../src/domain/work-refused.ts';
import { ImageProviderUnavailableError, ImageRateLimitedError, ImageRejectedError } from '../../src/generation/provider-errors.ts';
import { failureTypes } from '../../src/temporal/failure-types.ts';

// The boundary of activities that call services at the network edge: how each failure reaches Temporal's retry policy.

async function failureOf(error: Error): Promise<unknown> {
  return failingAsTemporal(() => Promise.reject(error)).then(() => undefined, (failure: unknown) => failure);
}

describe('failingAsTemporal', () => {
  it('when the domain refused the work, then the failure is final with the refusal\'s type and words', async () => {
    expect(await failureOf(new WorkRefused(failureTypes.noArtwork, 'No artwork yet.'))).toMatchObject({ type: failureTypes.noArtwork, nonRetryable: true, message: 'No artwork yet.' });
  });

  it('when the provider refused, then the failure is final; when it is rate limited, it waits as asked; when it is down, it is retried', async () => {
    expect(await failureOf(new ImageRejectedError('Refused by moderation.'))).toMatchObject({ type: failureTypes.imageRejected, nonRetryable: true, message: 'Refused by moderation.' });
    expect(await failureOf(new ImageRateLimitedError('Slow down.', 60_000))).toMatchObject({ type: failureTypes.imageRateLimited, nonRetryable: false, nextRetryDelay: 60_000 });
    expect(await failureOf(new ImageProviderUnavailableError('503'))).toMatchObject({ type: failureTypes.imageProviderUnavailable, nonRetryable: false });
  });

  it('when the work throws anything else, then it passes unchanged', async () => {
    const other = new TypeError('a bug');
    expect(await failureOf(other)).toBe(other);
    expect(other).not.toBeInstanceOf(ApplicationFailure);
  });
});
