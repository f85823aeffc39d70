import { log, patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { databaseWork, localDatabaseWork } from './activity-options.ts';

// A database read and a start on Temporal: unbounded while either is down (see databaseWork), when the workflow that
// calls this could not progress anyway; anything else is final and ends up below.
const { startEventDelivery, dispatchEvent } = proxyActivities<Activities>(databaseWork);
const local = proxyLocalActivities<Activities>(localDatabaseWork);

// Runs that began before the hand-over existed dispatched the event here themselves and waited for every delivery
// to start (which a bad webhook could jam for ever). Replaying such a run must schedule the same activity, so the
// runs without this marker keep doing that; new runs hand over. Once no such run is left, deprecatePatch() it.
export const eventHandOverPatch = 'event-hand-over';
// Runs that began before the hand-over was a local activity scheduled it as an activity task; they keep doing so.
export const localHandOverPatch = 'event-hand-over-local';

/**
 * Hands an event this workflow recorded to its delivery workflow (`event-<eventId>`) without waiting for webhooks.
 * The event is already committed with the change it reports, so a hand-over that fails for good is logged, never a
 * reason to fail the work that emitted it. A local activity: it runs in the same workflow task as the work that
 * recorded the event, so a publish costs no activity task and no further workflow task for it. `isPatched` is the
 * caller's when it folds its patches (see patchesFoldedInto).
 */
export async function handOver(eventId: string, isPatched: (patch: string) => boolean = patched): Promise<void> {
  if (!isPatched(eventHandOverPatch)) {
    await dispatchEvent({ eventId });
    return;
  }
  try {
    await (isPatched(localHandOverPatch) ? local.startEventDelivery : startEventDelivery)({ eventId });
  } catch (error) {
    log.error('The event could not be handed to its delivery workflow', { eventId, error: error instanceof Error ? error.message : String(error) });
  }
}
