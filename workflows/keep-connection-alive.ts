import { continueAsNew, proxyActivities, setCurrentDetails, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities/activity-signatures.ts';
import { connectionRefresh, databaseWork } from './contracts/activity-options.ts';
import { refreshMarginMs, type KeepConnectionAliveInput, type KeepConnectionAliveResult } from './contracts/keep-connection-alive.ts';
import { utc } from './current-details.ts';

const { refreshSocialConnection } = proxyActivities<Activities>(connectionRefresh);
const { startEventDelivery } = proxyActivities<Activities>(databaseWork);

/**
 * Refreshes per run before continuing as new: a round is an activity and a timer (about ten events), so a run's
 * history stays near 500 events (X: about three weeks of two-hour tokens).
 */
const roundsPerRun = 50;
// A platform whose tokens come back already inside the margin is not asked more often than this.
const minimumWaitMs = 60_000;

/**
 * Keeps one OAuth connection's tokens alive (`social-connection-<connectionId>`, started when the connection is
 * made): sleeps until `refreshMarginMs` before the access token expires, refreshes it (the activity stores the new
 * access token and the rotated refresh token in one update, while it holds the row's refresh lease), and sleeps again. A refusal by
 * the platform is reported by the activity: the connection is then `needs_reauth`, its `connection.expired` event
 * is handed to its delivery, and the workflow ends. Outages and rate limits are retried by the activity's policy
 * without end. Deleting the connection terminates the workflow; a run that wakes to a deleted connection ends too.
 */
export async function keepConnectionAlive({ connectionId }: KeepConnectionAliveInput): Promise<KeepConnectionAliveResult> {
  for (let round = 0; round < roundsPerRun; round += 1) {
    const outcome = await refreshSocialConnection({ connectionId, asOf: Date.now() });
    if (outcome.state === 'gone') return { ended: 'deleted' };
    if (outcome.state === 'needs_reauth') {
      if (outcome.eventId) await startEventDelivery({ eventId: outcome.eventId });
      return { ended: 'needs_reauth' };
    }
    const refreshAt = Math.max(outcome.expiresAt - refreshMarginMs, Date.now() + minimumWaitMs);
    setCurrentDetails(`Token expires ${utc(outcome.expiresAt)}; next refresh ${utc(refreshAt)}`);
    await sleep(refreshAt - Date.now());
  }
  return continueAsNew<typeof keepConnectionAlive>({ connectionId });
}
