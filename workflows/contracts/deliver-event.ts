import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { Activities } from '../../activities/index.ts';

// What starting and asking deliverEvent takes and answers: imported by its callers and by the workflow, and
// importing nothing of ours at run time.

/** The webhooks whose delivery failed and waits for its next rung of the ladder (the Temporal UI's Queries tab). */
export const retryingWebhooksQuery = defineQuery<string[]>('retryingWebhooks');

/**
 * The workspace moved to a plan without webhooks (sent by applyWorkspacePlan): the deliveries waiting on the ladder
 * go now instead of at their next rung, so the round reads the plan at once, logs why nothing was sent, and ends.
 */
export const planChangedSignal = defineSignal('planChanged');

export type DeliverEventInput = { eventId: string };

/** What one round's attempt to one webhook came to. */
type RoundOutcome = Awaited<ReturnType<Activities['deliverToWebhooks']>>[number]['outcome'];

export type WebhookDeliveryResult = {
  webhookId: string;
  /** Absent when the webhook stopped taking the event before its first attempt. */
  deliveryId?: string;
  /** `exhausted`: still failing after the last rung; `skipped`: deactivated, deleted or unsubscribed meanwhile. */
  outcome: RoundOutcome | 'exhausted';
  attempts: number;
};
export type EventDeliveryResult = { webhooks: WebhookDeliveryResult[] };
