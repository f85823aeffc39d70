import { log, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/activity-signatures.ts';
import { messageOf } from '../src/common/errors/caught.ts';
import { localDatabaseWork } from './contracts/activity-options.ts';

// A database read and a start on Temporal: unbounded while either is down (see databaseWork), when the workflow that
// calls this could not progress anyway; anything else is final and ends up below.
const { startEventDelivery } = proxyLocalActivities<Activities>(localDatabaseWork);

/**
 * Hands an event this workflow recorded to its delivery workflow (`event-<eventId>`) without waiting for webhooks.
 * The event is already committed with the change it reports, so a hand-over that fails for good is logged, never a
 * reason to fail the work that emitted it: the event waits for the event sweep, which hands it over. A local
 * activity: it runs in the same workflow task as the work that recorded the event, so a publish costs no activity
 * task and no further workflow task for it.
 */
export async function handOver(eventId: string): Promise<void> {
  try {
    await startEventDelivery({ eventId });
  } catch (error) {
    log.error('The event could not be handed to its delivery workflow', { eventId, error: messageOf(error) });
  }
}
