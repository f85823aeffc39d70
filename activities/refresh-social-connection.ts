import type { ApplicationFailure } from '@temporalio/activity';
import { RemoteRateLimitedError, RemoteUnavailableError } from '../src/adapters/net/remote-errors.ts';
import { refreshConnection } from '../src/domain/social-connections/refresh-connection.ts';
import type { Deps } from '../src/domain/deps.ts';
import type { RefreshOutcome } from '../workflows/contracts/keep-connection-alive.ts';
import { finalUnlessDependencyDown } from './database-work.ts';
import { asTemporalFailure } from './temporal-failure.ts';

/**
 * The keep-alive workflow's refresh. The platform's refusal is a result (the connection is marked `needs_reauth`);
 * an outage or a rate limit of the platform, and our database or Temporal being down, are retried by the workflow's
 * unbounded policy (a rate limit no sooner than the platform asked); anything else (a bug, bad data) is final.
 */
export function refreshSocialConnection(deps: Deps, input: { connectionId: string; asOf: number }): Promise<RefreshOutcome> {
  return finalUnlessDependencyDown(async () => {
    try {
      return await refreshConnection(deps, input.connectionId, { asOf: input.asOf });
    } catch (error) {
      if (error instanceof RemoteRateLimitedError || error instanceof RemoteUnavailableError) throw asTemporalFailure(error) as ApplicationFailure;
      throw error;
    }
  });
}
