import { describe, expect, it } from 'vitest';
import { countOutcome, type RemoteCallOutcome } from '../../../src/adapters/metrics/remote-call-outcome.ts';
import {
  SocialOutcomeUnknownError,
  SocialRateLimitedError,
  SocialRejectedError,
  SocialUnavailableError,
} from '../../../src/adapters/social/social-connector.ts';

// The outcome label a call at the network edge is counted under, from how it ended.

/** What a call ending with `ending` (a value, or an error thrown) is counted as. */
async function countedAs(ending: unknown): Promise<RemoteCallOutcome> {
  let counted: RemoteCallOutcome | undefined;
  const call = ending instanceof Error ? Promise.reject(ending) : Promise.resolve(ending);
  await countOutcome(call, (outcome) => (counted = outcome)).catch(() => {});
  return counted!;
}

describe('countOutcome', () => {
  it.each([
    ['succeeded', 'ok'],
    ['refused', new SocialRejectedError('no')],
    ['rate-limited', new SocialRateLimitedError('slow down', 1_000)],
    ['unavailable', new SocialUnavailableError('down')],
    ['unknown', new SocialOutcomeUnknownError('no answer after the request was sent')],
    ['error', new Error('a bug')],
  ] as const)('when the call ends %s, then it is counted so', async (outcome, ending) => {
    expect(await countedAs(ending)).toBe(outcome);
  });
});
