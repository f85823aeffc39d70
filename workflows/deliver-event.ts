import { defineQuery, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { databaseWork } from './activity-options.ts';

// Unbounded while the database or Temporal is down (see databaseWork); nothing waits for this workflow, so a long
// outage delays the event's deliveries and nothing else. One webhook's bad data never fails the dispatch.
const { dispatchEvent } = proxyActivities<Activities>(databaseWork);

/** The webhooks of this event whose delivery is still waiting for its next automatic attempt. */
export const retryingWebhooksQuery = defineQuery<string[]>('retryingWebhooks');

export type DeliverEventInput = { eventId: string };

/**
 * Hands one event (`event-<eventId>`) to every subscribed webhook, each as a `deliverWebhook` workflow of its own.
 * Started for the workflow that recorded the event, which does not wait for it: that workflow, and the customer's
 * action behind it, never wait for webhooks.
 */
export async function deliverEvent({ eventId }: DeliverEventInput): Promise<{ deliveries: number }> {
  return dispatchEvent({ eventId });
}
